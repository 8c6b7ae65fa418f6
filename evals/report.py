"""The eval's summary: one JSON document per run, and the tables printed at the end."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from evals.metrics import LatencyReport, Metric, Percentiles, Rate

SUMMARY_DIR = Path(".supportdesk/evals")
#: Failing turn ids printed per metric; the JSON summary holds all of them.
SHOWN_FAILURES = 8


class EvalSummary(BaseModel):
    started_at: datetime
    finished_at: datetime
    #: "private" (a desk booted for this run) or "running" (the desk `make up` started).
    desk: str
    model: str
    settings_hash: str
    runs_dir: str
    turns: int
    metrics: dict[str, Metric]
    datasets: dict[str, Metric]
    latency: LatencyReport


def write_summary(summary: EvalSummary, *extra: Path, directory: Path = SUMMARY_DIR) -> list[Path]:
    stamp = summary.finished_at.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    paths = [directory / f"{stamp}.json", *extra]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    return paths


def _pct(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.1%}"


def _failures(rate: Rate) -> str:
    shown = [f"{f.case_id} → {', '.join(t[:12] for t in f.turn_ids)}" for f in rate.failures[:SHOWN_FAILURES]]
    more = len(rate.failures) - len(shown)
    return "\n".join(shown + ([f"… {more} more in the JSON"] if more > 0 else []))


def metrics_table(title: str, metrics: dict[str, Metric]) -> Table:
    table = Table(title=title, show_lines=True)
    for column in ("metric", "n", "rate", "outcomes", "wrong way (case → turn ids)"):
        table.add_column(column, overflow="fold")
    for metric in metrics.values():
        outcomes = ", ".join(f"{k} {v}" for k, v in metric.outcomes.items())
        table.add_row(metric.name, str(metric.n), _pct(metric.rate), outcomes, _failures(metric))
    return table


def breakdown_table(metric: Metric, key: str) -> Table:
    table = Table(title=f"{metric.name} by {key}")
    for column in (key, "n", "rate"):
        table.add_column(column)
    for value, rate in metric.by.get(key, {}).items():
        table.add_row(value, str(rate.n), _pct(rate.rate))
    return table


def _p(found: Percentiles | None) -> str:
    if found is None or found.p50 is None or found.p95 is None:
        return "—"
    return f"{found.p50:.1f} / {found.p95:.1f}"


def latency_table(report: LatencyReport) -> Table:
    outcomes = list(report.end_to_end)
    steps = list(dict.fromkeys(name for by_step in report.steps.values() for name in by_step))
    table = Table(title="Latency from run logs, ms: p50 / p95 (n)")
    table.add_column("step")
    for outcome in outcomes:
        table.add_column(outcome)
    table.add_row("end to end", *(f"{_p(report.end_to_end[o])} ({report.end_to_end[o].n})" for o in outcomes))
    for name in steps:
        found = [report.steps.get(o, {}).get(name) for o in outcomes]
        table.add_row(name, *(f"{_p(f)} ({f.n})" if f else "—" for f in found))
    return table


def print_summary(console: Console, summary: EvalSummary) -> None:
    console.print(metrics_table(f"Eval of the {summary.desk} desk — model {summary.model}, "
                                f"settings {summary.settings_hash}, {summary.turns} turns", summary.metrics))
    attack = summary.metrics["T-ATTACK-BLOCK"]
    for key in ("group", "blocked_by", "needs_model"):
        console.print(breakdown_table(attack, key))
    for key in ("group", "blocked_by"):
        console.print(breakdown_table(summary.metrics["T-LEGIT-FALSE-BLOCK"], key))
    console.print(breakdown_table(summary.metrics["ISOLATION"], "style"))
    console.print(breakdown_table(summary.metrics["TASK-SUCCESS"], "kind"))
    console.print(latency_table(summary.latency))
    if summary.datasets:
        console.print(metrics_table("Public data set samples (share blocked)", summary.datasets))
