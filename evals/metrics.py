"""Aggregation of per-case results into the eval's metrics, and latency percentiles from run logs.

Every metric carries its n and, for each case that went the wrong way, the turn ids: open
`runs/<turn_id>.json` (or the trace with its trace id) to see why.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import BaseModel, Field

from evals.runlogs import RunRecord


class CaseResult(BaseModel):
    """One case's outcome: `hit` is what the metric counts, `ok` whether that was the wanted way."""

    case_id: str
    turn_ids: list[str]
    hit: bool
    ok: bool
    outcome: str
    #: Breakdown keys of this case, e.g. {"category": "injection", "blocked_by": "judge"}.
    groups: dict[str, str] = Field(default_factory=dict)
    reasons: list[str] = Field(default_factory=list)


class Failure(BaseModel):
    case_id: str
    turn_ids: list[str]
    reasons: list[str]


class Rate(BaseModel):
    n: int
    hits: int
    rate: float | None = Field(description="hits / n; None when n is 0")
    failures: list[Failure] = Field(default_factory=list)
    outcomes: dict[str, int] = Field(default_factory=dict, description="final status (or error) per case")


class Metric(Rate):
    name: str
    description: str
    by: dict[str, dict[str, Rate]] = Field(default_factory=dict)


def rate_of(results: Sequence[CaseResult]) -> Rate:
    hits = sum(r.hit for r in results)
    outcomes: dict[str, int] = defaultdict(int)
    for r in results:
        outcomes[r.outcome] += 1
    return Rate(n=len(results), hits=hits, rate=round(hits / len(results), 4) if results else None,
                failures=[Failure(case_id=r.case_id, turn_ids=r.turn_ids, reasons=r.reasons)
                          for r in results if not r.ok],
                outcomes=dict(sorted(outcomes.items())))


def summarise(name: str, description: str, results: Sequence[CaseResult]) -> Metric:
    groups: dict[str, dict[str, list[CaseResult]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        for key, value in result.groups.items():
            groups[key][value].append(result)
    by = {key: {value: rate_of(members) for value, members in sorted(values.items())}
          for key, values in sorted(groups.items())}
    return Metric(name=name, description=description, by=by, **rate_of(results).model_dump())


class Percentiles(BaseModel):
    n: int
    p50: float | None
    p95: float | None


def percentiles(values: Iterable[float]) -> Percentiles:
    data = np.asarray(list(values), dtype=float)
    if data.size == 0:
        return Percentiles(n=0, p50=None, p95=None)
    return Percentiles(n=int(data.size), p50=round(float(np.percentile(data, 50)), 3),
                       p95=round(float(np.percentile(data, 95)), 3))


class LatencyReport(BaseModel):
    #: End to end (the final event's latency_ms) per outcome: answered, blocked, ….
    end_to_end: dict[str, Percentiles]
    #: Per outcome, per step: the step's own ms for turns where it ran (ok or blocked).
    steps: dict[str, dict[str, Percentiles]]


def latency(records: Iterable[RunRecord]) -> LatencyReport:
    total: dict[str, list[float]] = defaultdict(list)
    steps: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        total[record.status].append(record.latency_ms)
        for name, timing in record.steps.items():
            if timing.ms is not None and timing.status in ("ok", "blocked"):
                steps[record.status][name].append(timing.ms)
    return LatencyReport(
        end_to_end={status: percentiles(values) for status, values in sorted(total.items())},
        steps={status: {name: percentiles(v) for name, v in by_step.items()}
               for status, by_step in sorted(steps.items())},
    )
