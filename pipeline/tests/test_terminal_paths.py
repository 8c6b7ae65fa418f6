"""Every terminal path of a turn, against the real desk with one dependency changed per case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pipeline.core.settings import Settings
from pipeline.desk import CustomerSession, Desk
from pipeline.events import ErrorEvent, FinalEvent, StepEvent, TurnEvent
from pipeline.tests.streams import drain
from pipeline.tests.variants import VARIANTS

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "terminal_paths.yaml").read_text(encoding="utf-8"))
CUSTOMER = CustomerSession("ben.okafor@example.com")


def _message(case: dict[str, Any]) -> str:
    return case["message"] * case.get("repeat", 1)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_turn_ends_as_specified(desk: Desk, desk_settings: Settings, tmp_path: Path,
                                      case: dict[str, Any]) -> None:
    settings = desk_settings.model_copy(update=case.get("settings", {}))
    async with VARIANTS[case.get("setup", "plain")](desk, settings, tmp_path) as pipeline:
        message = _message(case).replace("ORD-10001", "ORD-10007")  # ben's own first order
        events = await drain(pipeline.run_turn(CUSTOMER, message))

    assert isinstance(events[0], TurnEvent)
    assert [e.seq for e in events] == list(range(len(events)))
    terminal = [e for e in events if e.terminal]
    assert terminal == [events[-1]], "exactly one terminal event, and it is the last"
    ended = events[-1].model_dump(mode="json")
    for key, value in case["expect"].items():
        assert ended[key] == value, (key, ended)
    if isinstance(events[-1], ErrorEvent):
        # Customers get the safe message only: no class names, hosts or stack traces.
        assert "Error" not in events[-1].message and "127.0.0.1" not in events[-1].message
    if isinstance(events[-1], FinalEvent) and events[-1].status == "blocked":
        blocked = [e for e in events if isinstance(e, StepEvent) and e.status == "blocked"]
        assert [e.name for e in blocked] == [events[-1].blocked_by]
        assert not any(isinstance(e, StepEvent) and e.name == "agent" for e in events)

    record = json.loads((settings.runs_dir / f"{events[0].turn_id}.json").read_text())
    assert record["events"] == [e.model_dump(mode="json") for e in events]
    assert record["trace_id"] == events[0].trace_id and record["settings_hash"]
