"""Synthetic run logs, built from the pipeline's own event models and written like `Desk` does."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from pipeline.events import STEPS, ErrorEvent, FinalEvent, StepEvent, ToolEvent, TurnEvent, Usage
from pipeline.recorder import TurnRecorder


def run_log(email: str, *, status: str = "answered", blocked_by: str | None = None, answer: str = "",
            tools: list[dict[str, Any]] | None = None, step_ms: dict[str, float] | None = None,
            step_status: dict[str, str] | None = None, latency_ms: float = 50.0,
            detail: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """A run-log document with the keys and event shapes `Desk` writes."""
    recorder = TurnRecorder(uuid.uuid4().hex, lambda _: None)
    recorder.record(TurnEvent, trace_id=uuid.uuid4().hex, model="offline", started_at=recorder.started_at)
    for name, ms in (step_ms or {}).items():
        recorder.step(name, "started")  # type: ignore[arg-type]
        recorder.step(name, (step_status or {}).get(name, "ok"), ms=ms, **(detail or {}).get(name, {}))  # type: ignore[arg-type]
    for tool in tools or []:
        recorder.record(ToolEvent, status="ok", ms=1.0, **tool)
    if status == "error":
        recorder.record(ErrorEvent, stage="agent", code=503, message=answer, latency_ms=latency_ms)
    else:
        recorder.record(FinalEvent, status=status, answer=answer, blocked_by=blocked_by, usage=Usage(),
                        latency_ms=latency_ms)
    events = recorder.events
    steps = [e for e in events if isinstance(e, StepEvent) and e.status != "started"]
    assert all(e.name in STEPS for e in steps)
    return {
        "turn_id": recorder.turn_id, "trace_id": events[0].trace_id,  # type: ignore[union-attr]
        "customer_email": email, "model": "offline", "settings_hash": "test",
        "started_at": recorder.started_at.isoformat(), "outcome": events[-1].model_dump(mode="json"),
        "steps": {e.name: {"status": e.status, "ms": e.ms} for e in steps},
        "verdicts": {e.name: e.detail for e in steps if e.name in ("judge", "guardrail")},
        "tools": [e.model_dump(mode="json") for e in events if isinstance(e, ToolEvent)],
        "usage": Usage().model_dump(), "events": [e.model_dump(mode="json") for e in events],
    }


def write_run_log(runs_dir: Path, document: dict[str, Any]) -> str:
    runs_dir.mkdir(parents=True, exist_ok=True)
    (runs_dir / f"{document['turn_id']}.json").write_text(json.dumps(document), encoding="utf-8")
    return str(document["turn_id"])
