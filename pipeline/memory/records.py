"""The records the memory boundary hands back (a memory, a recall, a save): pydantic models shared by
every backend."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from guards.schema import Verdict


class Memory(BaseModel):
    """A recalled memory that passed the filters and may go into the prompt."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    score: float = Field(description="Cosine similarity of memory and query (0..1, higher is closer)")


class Dropped(BaseModel):
    """A memory the search found but the filters or the screening kept out of the prompt (for the
    run log: no text, so a dropped instruction is not copied anywhere).

    low_score / too_long: `filtering.py`; instruction: it tells the assistant how to behave
    (`policy.instructs_the_assistant`); judge_blocked: the Security Judge blocked it (`judge` holds
    the verdict).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    score: float
    chars: int
    why: Literal["low_score", "too_long", "instruction", "judge_blocked"]
    judge: Verdict | None = None


class Recall(BaseModel):
    """Result of one recall: `kept` best first, `dropped` with the reason of each."""

    model_config = ConfigDict(frozen=True)

    kept: list[Memory] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)


class SaveResult(BaseModel):
    """Outcome of one save.

    stored: written now (`memory_ids` are the new memories).
    duplicate: the customer already has a memory with exactly this text (`memory_ids` holds it).
    queued: accepted by a service that stores asynchronously (`event_id` tracks it).
    """

    model_config = ConfigDict(frozen=True)

    status: Literal["stored", "duplicate", "queued"]
    memory_ids: list[str] = Field(default_factory=list)
    event_id: str | None = None
