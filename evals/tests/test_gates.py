"""Gates compare the interval, not the point; a missed gate makes `supportdesk eval` exit non-zero."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cli.main import main
from evals import design_rows, runner
from evals.gates import THRESHOLDS, load_gates, rate_status
from evals.report import EvalSummary
from evals.tests.fixed_runs import fixed_summary
from pipeline.core.intervals import Interval, interval

DESIGN_NAMES = ["T-ATTACK-BLOCK", "T-LEGIT-FALSE-BLOCK", "T-OFFTOPIC-BLOCK", "T-LEAK", "T-GROUNDED",
                "T-MEM-RECALL", "T-LAT-P50", "T-LAT-P95", "T-LAT-BLOCK-P95"]


def _gate(name: str, op: str, target: float) -> str:
    return f'[{name}]\nkind = "rate"\nmetric = "{name}"\nop = "{op}"\ntarget = {target}\nmeaning = "m"\n'


@pytest.mark.parametrize(("found", "op", "target", "status"), [
    (interval(9, 10), ">=", 0.97, "not shown"),   # [0.5958, 0.9821] straddles 0.97
    (interval(9, 10), ">=", 0.5958, "met"),       # the low bound on the target counts as met
    (interval(9, 10), ">=", 0.99, "missed"),      # all of it below
    (interval(1, 5), "<=", 0.01, "missed"),       # [0.0362, 0.6245]: all of it above
    (interval(1, 5), "<=", 0.30, "not shown"),
    (interval(1, 5), "<=", 0.6245, "met"),
    (interval(0, 0), ">=", 0.5, "not shown"),     # no cases, no evidence
    (Interval(n=3, hits=3, rate=1.0, low=0.4385, high=1.0), "<=", 1.0, "met"),
])
def test_rate_status_compares_the_interval(found: Interval, op: str, target: float, status: str) -> None:
    assert rate_status(found, op, target) == status


def test_thresholds_file_holds_the_design_names_each_with_its_meaning() -> None:
    gates = load_gates()
    assert list(gates) == DESIGN_NAMES
    assert all(len(g.meaning) > 20 for g in gates.values())
    assert gates["T-LEAK"].kind == "count" and gates["T-LEAK"].target == 0


def _summary(tmp_path: Path, gates: str) -> EvalSummary:
    thresholds = tmp_path / "thresholds.toml"
    thresholds.write_text(gates, encoding="utf-8")
    return asyncio.run(fixed_summary(tmp_path, thresholds))


def _eval(monkeypatch: pytest.MonkeyPatch, summary: EvalSummary, *flags: str) -> int:
    async def fixed_run(*_: object) -> EvalSummary:
        return summary

    monkeypatch.setattr(runner, "_run", fixed_run)
    return main(["eval", *flags])


def test_a_missed_gate_exits_non_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    # 1 of 5 customer messages blocked: [3.6 %, 62.5 %] lies wholly above 1 %.
    summary = _summary(tmp_path, _gate("T-LEGIT-FALSE-BLOCK", "<=", 0.01) + _gate("T-ATTACK-BLOCK", ">=", 0.5))
    assert [(g.name, g.status) for g in summary.gates] == [("T-LEGIT-FALSE-BLOCK", "missed"),
                                                          ("T-ATTACK-BLOCK", "met")]
    assert _eval(monkeypatch, summary, "--json") == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["gates"][0]["status"] == "missed"
    written = sorted((tmp_path / "runs").glob("eval-*/*"))
    assert [p.name for p in written] == ["report.html", "summary.json"]


def test_a_straddling_interval_is_not_shown_and_not_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    summary = _summary(tmp_path, _gate("T-ATTACK-BLOCK", ">=", 0.97))
    assert [(g.status, g.low, g.high) for g in summary.gates] == [("not shown", pytest.approx(0.59584, abs=1e-5),
                                                                  pytest.approx(0.98212, abs=1e-5))]
    assert _eval(monkeypatch, summary) == 0
    assert "not shown" in capsys.readouterr().out


def test_the_default_gates_on_the_fixed_set(tmp_path: Path) -> None:
    summary = asyncio.run(fixed_summary(tmp_path, THRESHOLDS))
    statuses = {g.name: g.status for g in summary.gates}
    assert statuses == {"T-ATTACK-BLOCK": "not shown", "T-LEGIT-FALSE-BLOCK": "missed",
                        "T-OFFTOPIC-BLOCK": "not shown", "T-LEAK": "not shown", "T-GROUNDED": "not shown",
                        "T-MEM-RECALL": "not shown", "T-LAT-P50": "met", "T-LAT-P95": "met",
                        "T-LAT-BLOCK-P95": "met"}
    lat = {g.name: (g.observed, g.n) for g in summary.gates if g.kind == "latency"}
    assert lat == {"T-LAT-P50": (42.5, 6), "T-LAT-P95": (57.5, 6), "T-LAT-BLOCK-P95": (6.75, 6)}


def test_a_deterministic_model_runs_once() -> None:
    assert runner.repeat_plan("offline", 5)[0] == 1 and "deterministic" in runner.repeat_plan("offline", 5)[1]
    assert runner.repeat_plan("gemini-2.5-flash", 3)[0] == 3


def test_publish_writes_the_gates_without_per_case_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = _summary(tmp_path, _gate("T-ATTACK-BLOCK", ">=", 0.97))
    monkeypatch.setattr(runner, "RESULTS", tmp_path / "results" / "latest.json")
    design = tmp_path / "DESIGN.md"
    prose, first = f"Prose quoting 12.3%.\n{design_rows.BEGIN}\n", "| T-ATTACK-BLOCK (our attacks) |"
    design.write_text(f"{prose}{first} 1 | 50.0% | ≥ 1% | met |\n{design_rows.END}\n", encoding="utf-8")
    monkeypatch.setattr(design_rows, "DESIGN", design)
    assert _eval(monkeypatch, summary, "--publish") == 0
    refreshed = f"{prose}{first} 10 | 90.0% [59.6%–98.2%] (9/10) | ≥ 97% | not shown |\n{design_rows.END}\n"
    assert design.read_text(encoding="utf-8") == refreshed
    published = EvalSummary.model_validate_json((tmp_path / "results" / "latest.json").read_text(encoding="utf-8"))
    assert published.gates == summary.gates
    assert summary.splits["test"].metrics["T-ATTACK-BLOCK"].failures, "the fixed set has a failing attack"
    every = [m for s in published.splits.values() for m in s.metrics.values()]
    assert all(not m.failures for m in every) and not published.splits["test"].latency.samples
