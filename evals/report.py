"""The eval's summary: one JSON document per run, and the tables printed at the end."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from evals.gates import GateResult
from evals.latency import LatencyReport
from evals.metrics import Metric
from evals.scoring import SplitReport
from pipeline.core.intervals import Interval, Percentiles

#: Failing cases printed per metric; the JSON summary and report.html hold all of them.
SHOWN_FAILURES = 5
#: Breakdowns printed for every headline metric (the JSON holds every key).
BREAKDOWNS = ("source", "category", "language", "blocked_by")
STATUS_STYLE = {"met": "green", "not shown": "yellow", "missed": "bold red"}


class EvalSummary(BaseModel):
    started_at: datetime
    finished_at: datetime
    #: "private" (a desk booted for this run) or "running" (the desk `make up` started).
    desk: str
    model: str
    settings_hash: str
    runs_dir: str
    #: True for the offline model: the same message always gets the same verdict and answer.
    deterministic: bool
    repeat: int
    repeat_note: str
    #: The split the gates and the headline figures come from.
    headline: str = "test"
    #: Run logs read for the desk's own cases (public set samples not counted).
    turns: int
    gates: list[GateResult]
    splits: dict[str, SplitReport]
    datasets: dict[str, Metric]

    @property
    def head(self) -> SplitReport:
        return self.splits[self.headline]


def pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def with_interval(found: Interval) -> str:
    if found.n == 0:
        return "— (n 0)"
    return f"{pct(found.rate)} [{pct(found.low)}–{pct(found.high)}] ({found.hits}/{found.n})"


def gate_figure(gate: GateResult) -> str:
    if gate.kind == "latency":
        return "—" if gate.observed is None else f"{gate.observed:.1f} ms (n {gate.n})"
    if gate.kind == "count":
        return f"{gate.hits} of {gate.n}"
    return with_interval(Interval(n=gate.n, hits=gate.hits or 0, rate=gate.observed, low=gate.low, high=gate.high))


def gate_target(gate: GateResult) -> str:
    if gate.kind == "latency":
        return f"{gate.op} {gate.target:g} ms"
    return f"{gate.op} {gate.target:g}" if gate.kind == "count" else f"{gate.op} {gate.target:.0%}"


def gates_table(summary: EvalSummary) -> Table:
    table = Table(title=f"Gates on the {summary.headline} split (evals/thresholds.toml)")
    for column in ("gate", "target", "measured: rate [95% Wilson] (hits/n)", "status"):
        table.add_column(column)
    for gate in summary.gates:
        table.add_row(gate.name, gate_target(gate), gate_figure(gate),
                      f"[{STATUS_STYLE[gate.status]}]{gate.status}[/]")
    return table


def _failures(metric: Metric) -> str:
    shown = [f"{f.case_id} ({f.decided_by}) → {', '.join(t[:12] for t in f.turn_ids)}"
             for f in metric.failures[:SHOWN_FAILURES]]
    more = len(metric.failures) - len(shown)
    return "\n".join(shown + ([f"… {more} more in report.html"] if more > 0 else []))


def metrics_table(title: str, metrics: dict[str, Metric]) -> Table:
    table = Table(title=title, show_lines=True)
    for column in ("metric", "rate [95% Wilson] (hits/n)", "pass^k", "wrong way: case (decided by) → turn ids"):
        table.add_column(column, overflow="fold")
    for metric in metrics.values():
        table.add_row(metric.name, with_interval(metric), f"{pct(metric.pass_k.rate)} (k={metric.repeat})",
                      _failures(metric))
    return table


def breakdown_table(metric: Metric, key: str) -> Table:
    table = Table(title=f"{metric.name} by {key}")
    for column in (key, "rate [95% Wilson] (hits/n)"):
        table.add_column(column)
    for value, rate in metric.by.get(key, {}).items():
        table.add_row(value, with_interval(rate))
    return table


def _p(found: Percentiles | None) -> str:
    if found is None or found.p50 is None:
        return "—"
    return f"{found.p50:.1f} / {found.p95:.1f} / {found.p99:.1f} ({found.n})"


def latency_table(report: LatencyReport, title: str) -> Table:
    outcomes = list(report.end_to_end)
    steps = list(dict.fromkeys(name for by_step in report.steps.values() for name in by_step))
    table = Table(title=f"{title}, ms: p50 / p95 / p99 (n)")
    table.add_column("step")
    for outcome in outcomes:
        table.add_column(outcome)
    table.add_row("end to end", *(_p(report.end_to_end[o]) for o in outcomes))
    for name in steps:
        table.add_row(name, *(_p(report.steps.get(o, {}).get(name)) for o in outcomes))
    table.add_row("pattern-tier block", _p(report.pattern_block), *([""] * (len(outcomes) - 1)))
    return table


def print_summary(console: Console, summary: EvalSummary) -> None:
    head = summary.head
    console.print(metrics_table(f"Eval of the {summary.desk} desk — model {summary.model}, settings "
                                f"{summary.settings_hash}, {summary.turns} turns; headline = {summary.headline} "
                                f"split ({head.turns} turns)", head.metrics))
    for metric in head.metrics.values():
        for key in BREAKDOWNS:
            if len(metric.by.get(key, {})) > 1:
                console.print(breakdown_table(metric, key))
    dev = summary.splits["dev"].metrics
    console.print(metrics_table("dev split (cases the guards may be built from; not the headline)", dev))
    console.print(latency_table(head.latency, f"Latency from run logs, {summary.headline} split"))
    if summary.datasets:
        console.print(metrics_table("Public data set samples (apart from the headline): share blocked",
                                    summary.datasets))
    console.print(summary.repeat_note)
    console.print(gates_table(summary))
