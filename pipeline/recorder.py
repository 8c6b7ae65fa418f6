"""Stamps events with their turn id, sequence number and time, and keeps them for the run log."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from pipeline.events import ErrorEvent, Event, FinalEvent, StepEvent, StepName, ToolEvent, TurnEvent

E = TypeVar("E", TurnEvent, StepEvent, ToolEvent, FinalEvent, ErrorEvent)


class TurnRecorder:
    def __init__(self, turn_id: str, emit: Callable[[Event], None]) -> None:
        self.turn_id = turn_id
        self.started_at = datetime.now(UTC)
        self._t0 = time.perf_counter()
        self._emit = emit
        self.events: list[Event] = []

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self._t0) * 1000, 3)

    @property
    def finished(self) -> bool:
        return bool(self.events) and self.events[-1].terminal

    def record(self, kind: type[E], **fields: Any) -> E:
        if self.finished:
            raise RuntimeError(f"turn {self.turn_id} already ended; {kind.__name__} would follow its terminal event")
        event = kind(turn_id=self.turn_id, seq=len(self.events), t_ms=self.elapsed_ms(), **fields)
        self.events.append(event)
        self._emit(event)
        return event

    def step(self, name: StepName, status: str, *, ms: float | None = None, **detail: Any) -> StepEvent:
        return self.record(StepEvent, name=name, status=status, ms=None if ms is None else round(ms, 3),
                           detail=detail)

    def failing_step(self) -> StepName | None:
        """The step a failure or a cancel happened in: the last that failed, else one still open."""
        open_steps: dict[StepName, None] = {}
        for event in self.events:
            if isinstance(event, StepEvent):
                if event.status == "failed":
                    return event.name
                if event.status == "started":
                    open_steps[event.name] = None
                else:
                    open_steps.pop(event.name, None)
        return next(iter(open_steps), None)
