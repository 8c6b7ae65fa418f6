"""Latency from run logs: end to end per outcome, per step, and the pattern-tier blocks."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel, Field

from evals.runlogs import RunRecord
from pipeline.core.intervals import Percentiles, percentiles


class LatencyReport(BaseModel):
    #: End to end (the final event's latency_ms) per outcome: answered, blocked, ….
    end_to_end: dict[str, Percentiles]
    #: Per outcome, per step: the step's own ms for turns where it ran (ok or blocked).
    steps: dict[str, dict[str, Percentiles]]
    #: End to end of turns the Judge's pattern tier blocked (no model ran): T-LAT-BLOCK-P95.
    pattern_block: Percentiles
    #: Every step's own ms over all turns, for the report's histograms (0.01 ms resolution).
    samples: dict[str, list[float]] = Field(default_factory=dict)


def pattern_blocked(record: RunRecord) -> bool:
    return record.blocked_by == "judge" and (record.step_detail("judge") or {}).get("tier") == "pattern"


def latency(records: Iterable[RunRecord]) -> LatencyReport:
    total: dict[str, list[float]] = defaultdict(list)
    steps: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    samples: dict[str, list[float]] = defaultdict(list)
    blocks: list[float] = []
    for record in records:
        total[record.status].append(record.latency_ms)
        if pattern_blocked(record):
            blocks.append(record.latency_ms)
        for name, timing in record.steps.items():
            if timing.ms is not None and timing.status in ("ok", "blocked"):
                steps[record.status][name].append(timing.ms)
                samples[name].append(round(timing.ms, 2))
    return LatencyReport(
        end_to_end={status: percentiles(values) for status, values in sorted(total.items())},
        steps={status: {name: percentiles(v) for name, v in by_step.items()}
               for status, by_step in sorted(steps.items())},
        pattern_block=percentiles(blocks),
        samples=dict(samples),
    )
