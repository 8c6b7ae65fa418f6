"""The typed events a turn yields, one JSON object per line on the wire (application/x-ndjson).

Every event has `type`, `turn_id`, `seq` (0, 1, 2, … within the turn) and `t_ms` (milliseconds
since the turn started). A stream starts with `turn` and ends with exactly one terminal event:
`final` or `error`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

StepName = Literal["sanitizer", "judge", "guardrail", "recall", "agent", "masker", "save"]
STEPS: tuple[StepName, ...] = get_args(StepName)


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    turn_id: str
    seq: int = Field(ge=0)
    t_ms: float = Field(ge=0, description="Milliseconds since the turn started")

    @property
    def terminal(self) -> bool:
        return False


class TurnEvent(_Event):
    type: Literal["turn"] = "turn"
    trace_id: str
    model: str
    started_at: datetime


class StepEvent(_Event):
    type: Literal["step"] = "step"
    name: StepName
    status: Literal["started", "ok", "blocked", "skipped", "failed"]
    ms: float | None = Field(None, description="Duration of the step, ms (None on `started`)")
    detail: dict[str, Any] = Field(default_factory=dict)


class ToolEvent(_Event):
    type: Literal["tool"] = "tool"
    name: str
    #: What the model asked for; the bound customer email and idempotency key are never here.
    args: dict[str, Any]
    status: Literal["ok", "failed"]
    ms: float
    row_count: int | None = None


class Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: int = 0


class PendingCard(BaseModel):
    """A request waiting for the customer's yes (`needs_confirmation`): send `token` back with "yes"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token: str = Field(description="Signed by the desk; only this session's customer can confirm it")
    order_id: str
    action: str
    summary: str = Field(description="What would be recorded, masked like the answer")
    expires_at: datetime


class FinalEvent(_Event):
    type: Literal["final"] = "final"
    status: Literal["answered", "needs_confirmation", "blocked", "capped", "refused"]
    answer: str
    blocked_by: StepName | None = None
    reason: str | None = None
    terminated: Literal["cap"] | None = None
    pending: PendingCard | None = None
    usage: Usage
    latency_ms: float

    @property
    def terminal(self) -> bool:
        return True


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    stage: StepName | Literal["pipeline"]
    code: Literal[502, 503, 504]
    message: str = Field(description="Safe to show a customer; internal detail goes to logs and traces")
    cancelled: bool = False
    latency_ms: float

    @property
    def terminal(self) -> bool:
        return True


Event = Annotated[TurnEvent | StepEvent | ToolEvent | FinalEvent | ErrorEvent, Field(discriminator="type")]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(line: str | bytes) -> Event:
    """Read one NDJSON line back into its event model (front ends and tests use this)."""
    return EVENT_ADAPTER.validate_json(line)
