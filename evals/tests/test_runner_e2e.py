"""The runner end to end on the real desk: a handful of cases from the case files, scored from run logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.casefiles import Suite, load_suite, status_phrases
from evals.dbfacts import read_facts
from evals.execute import CaseRun, run_suite
from evals.html_report import RATE_PLOTS, write_report
from evals.report import EvalSummary
from evals.runner import evaluate
from evals.scoring import Scores, score
from evals.tests.report_browser import assert_every_plot_renders, rendered_plots
from pipeline.desk import Desk

PICK = {"tasks": ["status-shipped-where", "delivery-neighbour", "list-plain"],
        "isolation": ["plain-status", "impersonate-email", "list-everyone"]}


@pytest.fixture(scope="module")
def suite() -> Suite:
    full = load_suite()
    return Suite(tasks=[t for t in full.tasks if t.id in PICK["tasks"]],
                 isolation=[c for c in full.isolation if c.id in PICK["isolation"]],
                 attacks=full.attacks[:3], legit=full.legit[:3], offtopic=full.offtopic[:3])


@pytest.fixture(scope="module")
async def summary(desk: Desk, suite: Suite) -> EvalSummary:
    return await evaluate(desk, suite, desk="test")


def _outcome(runs_dir: Path, turn_id: str) -> dict[str, object]:
    outcome: dict[str, object] = json.loads((runs_dir / f"{turn_id}.json").read_text())["outcome"]
    return outcome


async def _rescore(desk: Desk, suite: Suite, runs: list[CaseRun]) -> Scores:
    facts = await read_facts(desk.settings)
    return await score(runs, suite, facts, desk.settings, desk.settings.runs_dir, status_phrases())


async def test_summary_covers_every_case_and_turn(desk: Desk, suite: Suite, summary: EvalSummary) -> None:
    assert summary.turns == suite.size()
    assert summary.model == desk.settings.model_name and summary.runs_dir == str(desk.settings.runs_dir.resolve())
    grounded = sum(t.kind in ("status", "list_orders") for t in suite.tasks)
    expected_n = {"T-ATTACK-BLOCK": len(suite.attacks), "T-LEGIT-FALSE-BLOCK": len(suite.legit),
                  "T-OFFTOPIC-BLOCK": len(suite.offtopic), "T-LEAK": len(suite.isolation),
                  "T-GROUNDED": grounded, "T-MEM-RECALL": 0, "TASK-SUCCESS": len(suite.tasks)}
    every = summary.splits["all"]
    assert {name: m.n for name, m in every.metrics.items()} == expected_n
    for name, metric in every.metrics.items():
        parts = [summary.splits[s].metrics[name] for s in ("test", "dev")]
        assert sum(m.n for m in parts) == metric.n and sum(m.hits for m in parts) == metric.hits
    assert sum(p.n for p in every.latency.end_to_end.values()) == summary.turns
    assert [g.name for g in summary.gates][:2] == ["T-ATTACK-BLOCK", "T-LEGIT-FALSE-BLOCK"]
    for metric in every.metrics.values():
        for failure in metric.failures:
            assert all((desk.settings.runs_dir / f"{t}.json").exists() for t in failure.turn_ids)


@pytest.mark.browser
async def test_the_runs_report_renders_every_plot_in_chromium(summary: EvalSummary, tmp_path: Path) -> None:
    _, html = write_report(summary, Path(summary.runs_dir) / "eval-e2e-test")
    screenshot = tmp_path / "report.png"
    sizes, outside = await rendered_plots(html, screenshot)
    rate_plots = sum(bool(summary.head.metrics[m].by.get(k)) for m in RATE_PLOTS for k in ("category", "language"))
    assert_every_plot_renders(sizes, outside, 2 + rate_plots, screenshot)


async def test_scores_follow_the_run_logs_not_the_stream(desk: Desk, suite: Suite) -> None:
    facts = await read_facts(desk.settings)
    runs = await run_suite(desk, suite, facts)
    runs_dir = desk.settings.runs_dir
    before = await _rescore(desk, suite, runs)
    attacks = [r for r in runs if r.section == "attack"]
    blocked = [r for r in attacks if _outcome(runs_dir, r.turn_ids[0])["status"] == "blocked"]
    assert before.splits["all"].metrics["T-ATTACK-BLOCK"].hits == len(blocked)

    # Rewrite one blocked attack's log as answered, and delete a legit turn's log: the scores move.
    target = blocked[0].turn_ids[0]
    path = runs_dir / f"{target}.json"
    record = json.loads(path.read_text())
    record["outcome"].update(status="answered", blocked_by=None, answer="Sure, here you go.")
    path.write_text(json.dumps(record))
    legit = next(r for r in runs if r.section == "legit")
    (runs_dir / f"{legit.turn_ids[0]}.json").unlink()

    after = await _rescore(desk, suite, runs)
    attack = after.splits["all"].metrics["T-ATTACK-BLOCK"]
    assert attack.hits == len(blocked) - 1
    assert [target] in [f.turn_ids for f in attack.failures]
    missing = [f for f in after.splits["all"].metrics["T-LEGIT-FALSE-BLOCK"].failures if f.case_id == legit.case_id]
    assert missing and "missing" in missing[0].reasons[0]
