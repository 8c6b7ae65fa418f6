"""Per-case verdicts on synthetic run logs (written to disk and read back, as the eval does)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from evals import checks
from evals.casefiles import IsolationCase, MessageCase, TaskCase, status_phrases
from evals.dbfacts import ActionRow, Customer, DeskFacts, Order
from evals.runlogs import RunRecord, load_run
from evals.tests.runlog_factory import run_log, write_run_log

DATA = yaml.safe_load((Path(__file__).parent / "cases" / "verdicts.yaml").read_text(encoding="utf-8"))
A, B = "a@example.com", "b@example.com"
FACTS = DeskFacts(customers={
    email: Customer(email=email, full_name=c["full_name"],
                    orders=[Order(customer_email=email, **o) for o in c["orders"]])
    for email, c in DATA["facts"].items()})
PHRASES = status_phrases()


def _record(tmp_path: Path, case: dict[str, Any], email: str = B, **fields: Any) -> RunRecord:
    document = run_log(email, status=case.get("status", "answered"), blocked_by=case.get("blocked_by"),
                       answer=case.get("answer", ""), tools=case.get("tools"), **fields)
    return load_run(tmp_path, write_run_log(tmp_path, document))


def _ids(section: str) -> list[str]:
    return [c["id"] for c in DATA[section]]


@pytest.mark.parametrize("case", DATA["isolation"], ids=_ids("isolation"))
def test_isolation_verdict(tmp_path: Path, case: dict[str, Any]) -> None:
    iso = IsolationCase(split="test", id=case["id"], style="plain", attacker=B, victim=A, message=case["message"])
    actions = [ActionRow(**a) for a in case.get("actions", [])]
    result = checks.isolation_result(iso, case["message"], _record(tmp_path, case), FACTS, actions)
    assert result.ok is case["passes"], result.reasons
    assert bool(result.reasons) is not case["passes"]
    assert result.hit is not case["passes"], "T-LEAK counts the cases that leaked"


def test_isolation_run_log_of_another_customer_fails(tmp_path: Path) -> None:
    iso = IsolationCase(split="test", id="x", style="plain", attacker=B, victim=A, message="hi")
    result = checks.isolation_result(iso, "hi", _record(tmp_path, {"answer": "Hello"}, email=A), FACTS, [])
    assert not result.ok


@pytest.mark.parametrize("case", DATA["status"], ids=_ids("status"))
def test_status_verdict(tmp_path: Path, case: dict[str, Any]) -> None:
    task = TaskCase(split="test", id=case["id"], kind="status", customer=B, order=case["order"], messages=["?"])
    result = checks.status_result(task, _record(tmp_path, case), FACTS, PHRASES)
    assert result.ok is case["passes"], result.reasons


@pytest.mark.parametrize("status", ["processing", "shipped", "out for delivery", "delivered", "returned",
                                    "cancelled"])
def test_each_status_phrase_states_only_its_own_status(status: str) -> None:
    # The offline model's own sentence for a status must read as that status and no other
    # (negations like "has not shipped yet" must not count as "shipped").
    from pipeline.models.answers import order_status

    answer = order_status({"order_id": "ORD-10001", "status": status, "items": [], "order_date": "2026-10-01",
                           "total_amount": 1.0}, where=False, delivery_notes=[])
    stated = [s for s in PHRASES.patterns if PHRASES.states(s, answer)]
    assert stated == [status], answer


@pytest.mark.parametrize("case", DATA["list"], ids=_ids("list"))
def test_list_verdict(tmp_path: Path, case: dict[str, Any]) -> None:
    task = TaskCase(split="test", id=case["id"], kind="list_orders", customer=B, messages=["Show me my orders"])
    assert checks.list_result(task, _record(tmp_path, case), FACTS).ok is case["passes"]


@pytest.mark.parametrize("case", DATA["delivery"], ids=_ids("delivery"))
def test_delivery_verdict(tmp_path: Path, case: dict[str, Any]) -> None:
    task = TaskCase(split="test", id=case["id"], kind="delivery_instruction", customer=B, order="ORD-10004",
                    messages=["Leave ORD-10004 at the door"])
    actions = [ActionRow(**a) for a in case["actions"]]
    result = checks.delivery_result(task, _record(tmp_path, {"answer": "Recorded."}), FACTS, actions)
    assert result.ok is case["passes"], result.reasons


@pytest.mark.parametrize("case", DATA["memory"], ids=_ids("memory"))
def test_memory_verdict(tmp_path: Path, case: dict[str, Any]) -> None:
    task = TaskCase(split="test", id=case["id"], kind="memory", customer=B, order="ORD-10003", mention="porch",
                    messages=["From now on leave parcels on the porch", "Where is ORD-10003?"])
    first = _record(tmp_path, {"answer": "Noted."}, step_ms={"save": 3.0}, step_status={"save": case["save"]})
    later = _record(tmp_path, {"answer": case["answer"]},
                    step_ms={"recall": 2.0}, detail={"recall": {"kept": [], "dropped": [{"score": 0.2}]}})
    result = checks.memory_result(task, [first, later])
    assert result.ok is case["passes"], result.reasons
    assert result.turn_ids == [first.turn_id, later.turn_id]


@pytest.mark.parametrize(("expect", "status", "blocked_by", "ok"), [
    ("block", "blocked", "judge", True), ("block", "blocked", "sanitizer", True),
    ("block", "answered", None, False), ("block", "error", None, False),
    ("allow", "answered", None, True), ("allow", "blocked", "guardrail", False),
])
def test_message_verdict(tmp_path: Path, expect: str, status: str, blocked_by: str | None, ok: bool) -> None:
    case = MessageCase(split="test", id="m", text="t", expect=expect, group="g",  # type: ignore[arg-type]
                       tags={"needs_model": "true"})
    record = _record(tmp_path, {"status": status, "blocked_by": blocked_by, "answer": "x"})
    result = checks.message_result(case, record)
    assert (result.ok, result.hit) == (ok, status == "blocked")
    assert result.groups["blocked_by"] == (blocked_by or f"not blocked ({status})")
    assert result.groups["needs_model"] == "true" and result.outcome == status
