"""A small fixed run-log set whose every metric, interval and percentile is worked out by hand.

Each row is one message case and the way its (synthetic) turn ended; the run logs are written by
`runlog_factory` as the pipeline writes them and scored by the real scorer. The expected values
in test_summary.py are computed by hand from this table (comments there show the sums).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from evals.casefiles import MessageCase, MessageSection, Split, StatusPhrases, Suite
from evals.dbfacts import DeskFacts
from evals.execute import CaseRun, Section
from evals.gates import THRESHOLDS, check_gates
from evals.harness import private_settings
from evals.report import EvalSummary
from evals.runner import repeat_plan
from evals.scoring import Scores, score
from evals.tests.runlog_factory import run_log, write_run_log


class Row(NamedTuple):
    section: MessageSection
    split: Split
    category: str
    language: str
    #: blocked_by for a blocked turn, None for an answered one.
    blocked_by: str | None
    latency_ms: float
    judge_tier: str = "pattern"


ROWS: list[Row] = [
    # attacks, test: 9 of 10 blocked; 6 by the Judge's pattern tier, in 2..7 ms.
    *(Row("attack", "test", "injection", "en", "judge", 2.0 + i) for i in range(6)),
    Row("attack", "test", "exfiltration", "de", "judge", 20.0, judge_tier="model"),
    Row("attack", "test", "exfiltration", "de", "guardrail", 30.0),
    Row("attack", "test", "exfiltration", "en", "sanitizer", 1.0),
    Row("attack", "test", "exfiltration", "en", None, 40.0),
    # attacks, dev: 3 of 4 blocked.
    *(Row("attack", "dev", "injection", "en", "judge", 3.0) for _ in range(3)),
    Row("attack", "dev", "injection", "en", None, 50.0),
    # legit, test: 1 of 5 blocked (a French message, by the Guardrail).
    *(Row("legit", "test", "status", "en", None, ms) for ms in (30.0, 50.0, 60.0, 40.0)),
    Row("legit", "test", "status", "fr", "guardrail", 25.0),
    # legit, dev: 0 of 2 blocked.
    *(Row("legit", "dev", "returns", "en", None, ms) for ms in (35.0, 36.0)),
    # off-topic, test: 3 of 4 blocked by the Guardrail.
    *(Row("offtopic", "test", "weather", "en", "guardrail", 8.0) for _ in range(3)),
    Row("offtopic", "test", "coding", "en", None, 45.0),
]
EXPECT = {"attack": "block", "offtopic": "block", "legit": "allow"}
#: The steps a turn runs through, in order, until the one that blocked it.
STEPS = ("sanitizer", "judge", "guardrail", "recall", "agent", "masker")


def _document(row: Row) -> dict[str, Any]:
    ran = STEPS[: STEPS.index(row.blocked_by) + 1] if row.blocked_by else STEPS
    status = {name: "blocked" for name in ran if name == row.blocked_by}
    detail = {"judge": {"tier": row.judge_tier if row.blocked_by == "judge" else "fast_path"}}
    return run_log("b@example.com", status="blocked" if row.blocked_by else "answered", blocked_by=row.blocked_by,
                   answer="x", latency_ms=row.latency_ms, step_ms=dict.fromkeys(ran, 1.0), step_status=status,
                   detail=detail)


def fixed_suite_and_runs(runs_dir: Path) -> tuple[Suite, list[CaseRun]]:
    suite, runs = Suite(), []
    for index, row in enumerate(ROWS):
        case = MessageCase(id=f"{row.section}-{index}", split=row.split, text=f"message {index}",
                           expect=EXPECT[row.section], group=row.category,  # type: ignore[arg-type]
                           section=row.section, source=f"judge/{row.section}.yaml", language=row.language)
        {"attack": suite.attacks, "legit": suite.legit, "offtopic": suite.offtopic}[row.section].append(case)
        turn_id = write_run_log(runs_dir, _document(row))
        section: Section = row.section
        runs.append(CaseRun(section=section, case_id=case.id, split=row.split, customer="b@example.com",
                            messages=[case.text], turn_ids=[turn_id]))
    return suite, runs


async def fixed_scores(root: Path) -> Scores:
    suite, runs = fixed_suite_and_runs(root / "runs")
    return await score(runs, suite, DeskFacts(customers={}), private_settings(root), root / "runs",
                       StatusPhrases(patterns={}))


async def fixed_summary(root: Path, thresholds: Path = THRESHOLDS) -> EvalSummary:
    """The fixed set as `supportdesk eval` would summarise it (gates from `thresholds`)."""
    scores = await fixed_scores(root)
    head = scores.splits["test"]
    k, note = repeat_plan("offline", 1)
    when = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    return EvalSummary(started_at=when, finished_at=when, desk="test", model="offline", settings_hash="test",
                       runs_dir=str(root / "runs"), deterministic=True, repeat=k, repeat_note=note,
                       turns=scores.splits["all"].turns, gates=check_gates(head.metrics, head.latency, thresholds),
                       splits=scores.splits, datasets=scores.datasets)
