"""Wire models shared by the guards, their A2A services and the pipeline-side clients.

These are the only shapes a guard may answer with: a reply that does not validate against them
is a protocol error (fail closed), never an "allow".
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Verdict(BaseModel):
    """The Security Judge's (and the Guardrail's) decision on one customer message."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Literal["allow", "block"]
    reason: str = Field(max_length=500)
    rules: list[str] = Field(default_factory=list)
    tier: Literal["pattern", "fast_path", "model"]
    #: Similarity or confidence behind a model-tier decision; None for rule decisions.
    score: float | None = None


class Reading(BaseModel):
    """A sentence vector the Judge computed for the text it decided on, so the desk need not compute
    it again (the Guardrail and the offline agent read the same e5 model; one e5 reading costs
    ~15 ms of a core). `embedder` names the model, engine and weights file: a desk whose embedder
    differs ignores the reading and computes its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    embedder: str = Field(max_length=200)
    #: Base64 of the vector's little-endian float32 values.
    vector: str = Field(max_length=8192)


class JudgeReply(Verdict):
    """What the Judge service answers: its verdict, and the message's vector when its model read it."""

    reading: Reading | None = None


class Redaction(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str
    start: int = Field(ge=0, description="Offset in the input, code points")
    end: int = Field(ge=0, description="End offset (exclusive) in the input, code points")


class MaskResult(BaseModel):
    """The Data Masker's reply: masked text and where each replaced span stood in the input."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    redactions: list[Redaction] = Field(default_factory=list)
