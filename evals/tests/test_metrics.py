"""Aggregation: rates with their n, hits and failing turn ids, breakdowns, latency percentiles by outcome."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from evals.latency import latency
from evals.metrics import CaseResult, summarise
from evals.runlogs import load_run
from evals.tests.runlog_factory import run_log, write_run_log
from pipeline.core.intervals import DIGITS, percentiles


def _result(index: int, hit: bool, ok: bool, group: str) -> CaseResult:
    return CaseResult(case_id=f"c{index}", turn_ids=[f"t{index}"], hit=hit, ok=ok,
                      outcome="blocked" if hit else "answered", groups={"group": group})


@pytest.mark.parametrize("flags", [
    [(True, True, "x"), (False, False, "x"), (True, True, "y")],
    [(False, True, "x")] * 5 + [(True, False, "y")],
    [],
])
def test_summary_counts_hits_and_names_every_wrong_case(flags: list[tuple[bool, bool, str]]) -> None:
    results = [_result(i, *f) for i, f in enumerate(flags)]
    metric = summarise("M", "d", results)
    hits = sum(f[0] for f in flags)
    assert (metric.n, metric.hits) == (len(flags), hits)
    assert metric.rate == (round(hits / len(flags), DIGITS) if flags else None)
    assert (metric.low is None) is (not flags) and (metric.high is None) is (not flags)
    assert [f.turn_ids for f in metric.failures] == [r.turn_ids for r in results if not r.ok]
    assert sum(metric.outcomes.values()) == len(flags)
    for group in {f[2] for f in flags}:
        members = [f for f in flags if f[2] == group]
        assert metric.by["group"][group].n == len(members)
        assert metric.by["group"][group].hits == sum(f[0] for f in members)


@pytest.mark.parametrize("values", [[5.0], [1.0, 2.0], [float(v) for v in range(1, 101)],
                                    [3.0, 90.0, 7.5, 12.0, 11.0, 400.0, 9.0]])
def test_percentiles_match_linear_interpolation(values: list[float]) -> None:
    found = percentiles(values)
    single = len(values) == 1
    expected_p95 = values[0] if single else statistics.quantiles(values, n=20, method="inclusive")[18]
    expected_p99 = values[0] if single else statistics.quantiles(values, n=100, method="inclusive")[98]
    assert found.n == len(values)
    assert found.p50 == pytest.approx(statistics.median(values), abs=1e-3)
    assert found.p95 == pytest.approx(expected_p95, abs=1e-3)
    assert found.p99 == pytest.approx(expected_p99, abs=1e-3)


def test_no_values_no_percentiles() -> None:
    assert percentiles([]).model_dump() == {"n": 0, "p50": None, "p95": None, "p99": None}


def test_latency_by_outcome_and_step_from_run_logs(tmp_path: Path) -> None:
    answered = [run_log("b@example.com", latency_ms=ms, step_ms={"judge": ms / 10, "agent": ms / 2})
                for ms in (40.0, 60.0, 80.0)]
    blocked = [run_log("b@example.com", status="blocked", blocked_by="judge", latency_ms=ms,
                       step_ms={"judge": ms - 1, "recall": 0.5}, step_status={"recall": "skipped"})
               for ms in (5.0, 7.0)]
    records = [load_run(tmp_path, write_run_log(tmp_path, d)) for d in answered + blocked]
    report = latency(records)
    assert report.end_to_end["answered"].n == 3 and report.end_to_end["answered"].p50 == 60.0
    assert report.end_to_end["blocked"].p50 == 6.0
    assert report.steps["answered"]["agent"].p50 == 30.0
    assert report.steps["blocked"]["judge"].n == 2
    assert "recall" not in report.steps["blocked"], "skipped steps take no time and are not counted"


def test_pass_k_counts_cases_that_went_right_in_every_run() -> None:
    # Three cases, two runs each: c0 right twice, c1 wrong once, c2 wrong twice → pass^2 = 1/3.
    runs = [(0, True), (0, True), (1, True), (1, False), (2, False), (2, False)]
    results = [CaseResult(case_id=f"c{case}", turn_ids=[f"t{i}"], hit=ok, ok=ok, outcome="blocked")
               for i, (case, ok) in enumerate(runs)]
    metric = summarise("M", "d", results, repeat=2)
    assert (metric.n, metric.hits, metric.repeat) == (6, 3, 2)
    assert (metric.pass_k.n, metric.pass_k.hits, metric.pass_k.rate) == (3, 1, round(1 / 3, DIGITS))
