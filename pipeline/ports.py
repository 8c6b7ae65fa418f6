"""The ports a turn talks to (Judge, Masker, Guardrail, agent, memory, actions), built once per process
and injected as `DeskServices` (tests pass their own)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from google.adk.events import Event as AdkEvent

from guards.schema import MaskResult, Verdict
from pipeline.guardrail import GuardrailResult
from pipeline.memory.store import MemoryStore
from pipeline.pending import ProposedAction


class JudgePort(Protocol):
    async def screen(self, text: str) -> Verdict: ...


class MaskerPort(Protocol):
    async def mask(self, text: str) -> MaskResult: ...


class GuardrailPort(Protocol):
    async def check(self, text: str) -> GuardrailResult: ...


class ActionsPort(Protocol):
    """Writes a request the customer confirmed (`pipeline.agent.actions.ActionDesk`)."""

    async def record(self, proposal: ProposedAction, *, proposed_at: datetime) -> dict[str, Any]: ...


class AgentPort(Protocol):
    async def prepare(self, text: str) -> None:
        """Work on the message that can start before the guards have decided (it must not answer)."""
        ...

    def run(self, email: str, text: str, memories: Sequence[str]) -> AsyncIterator[AdkEvent]: ...


@dataclass(frozen=True)
class DeskServices:
    judge: JudgePort
    masker: MaskerPort
    guardrail: GuardrailPort
    agent: AgentPort
    memory: MemoryStore
    #: Extra resources to release at shutdown (e.g. the Toolbox client behind the agent's tools).
    closers: tuple[Callable[[], Awaitable[None]], ...] = ()
    #: Confirmed requests are written here; None: this desk proposes nothing it could write.
    actions: ActionsPort | None = None
