"""Run logs (`runs/<turn_id>.json`) read back as typed records: the eval's only evidence of a turn."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipeline.events import ErrorEvent, FinalEvent, StepEvent, ToolEvent


class StepTiming(BaseModel):
    status: str
    ms: float | None = None


class RunRecord(BaseModel):
    """The fields of a run log the eval scores; everything else in the file is kept as it is."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    turn_id: str
    trace_id: str
    customer_email: str
    started_at: datetime
    outcome: FinalEvent | ErrorEvent = Field(discriminator="type")
    steps: dict[str, StepTiming]
    tools: list[ToolEvent]
    events: list[dict[str, Any]]

    @property
    def status(self) -> str:
        """answered | blocked | capped | refused, or error."""
        return self.outcome.status if isinstance(self.outcome, FinalEvent) else "error"

    @property
    def blocked_by(self) -> str | None:
        return self.outcome.blocked_by if isinstance(self.outcome, FinalEvent) else None

    @property
    def reason(self) -> str | None:
        """The pipeline's reason for the outcome (a guard's verdict reason), or the error's message."""
        return self.outcome.reason if isinstance(self.outcome, FinalEvent) else self.outcome.message

    @property
    def answer(self) -> str:
        return self.outcome.answer if isinstance(self.outcome, FinalEvent) else self.outcome.message

    @property
    def latency_ms(self) -> float:
        return self.outcome.latency_ms

    @property
    def ended_at(self) -> datetime:
        return self.started_at + timedelta(milliseconds=self.latency_ms)

    def step_detail(self, name: str) -> dict[str, Any] | None:
        """The detail of step `name`'s closing event (ok/blocked/skipped/failed), if it ran."""
        for event in reversed(self.events):
            if event.get("type") == "step" and event.get("name") == name and event.get("status") != "started":
                detail: dict[str, Any] = StepEvent.model_validate(event).detail
                return detail
        return None


class MissingRunLog(LookupError):
    """A turn whose run log is absent or unreadable: the eval counts its case as failed."""


def load_run(runs_dir: Path, turn_id: str) -> RunRecord:
    path = runs_dir / f"{turn_id}.json"
    try:
        return RunRecord.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise MissingRunLog(f"run log {path} missing or unreadable: {exc}") from exc
