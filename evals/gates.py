"""The eval's gates (`evals/thresholds.toml`): each compares a headline figure with its target.

A rate gate compares the 95 % interval, not the point: a rate is only "met" when the whole
interval is on the right side of the target, "missed" when the whole of it is on the wrong side,
and "not shown" when it straddles the target (or when there were no cases).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from evals.latency import LatencyReport
from pipeline.core.intervals import Interval

THRESHOLDS = Path(__file__).parent / "thresholds.toml"
GateStatus = Literal["met", "not shown", "missed"]


class _Gate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    meaning: str
    op: Literal[">=", "<="]
    target: float


class RateGate(_Gate):
    kind: Literal["rate"]
    metric: str


class CountGate(_Gate):
    kind: Literal["count"]
    metric: str
    op: Literal["<="]


class LatencyGate(_Gate):
    kind: Literal["latency"]
    series: Literal["answered", "pattern_block"]
    percentile: Literal["p50", "p95", "p99"]
    op: Literal["<="]


Gate = Annotated[RateGate | CountGate | LatencyGate, Field(discriminator="kind")]
_GATES = TypeAdapter(dict[str, Gate])


class GateResult(BaseModel):
    name: str
    meaning: str
    kind: str
    op: str
    target: float
    status: GateStatus
    #: The figure compared: a rate, a count of hits, or ms.
    observed: float | None
    n: int
    hits: int | None = None
    low: float | None = None
    high: float | None = None


def load_gates(path: Path = THRESHOLDS) -> dict[str, RateGate | CountGate | LatencyGate]:
    return _GATES.validate_python(tomllib.loads(path.read_text(encoding="utf-8")))


def rate_status(found: Interval, op: str, target: float) -> GateStatus:
    if found.n == 0 or found.low is None or found.high is None:
        return "not shown"
    below, above = found.high < target, found.low > target
    if op == ">=":
        return "met" if found.low >= target else "missed" if below else "not shown"
    return "met" if found.high <= target else "missed" if above else "not shown"


def judge(name: str, gate: RateGate | CountGate | LatencyGate, metrics: Mapping[str, Interval],
          latency: LatencyReport) -> GateResult:
    common: dict[str, Any] = {"name": name, "meaning": gate.meaning, "kind": gate.kind, "op": gate.op,
                              "target": gate.target}
    if isinstance(gate, LatencyGate):
        series = latency.pattern_block if gate.series == "pattern_block" else latency.end_to_end.get(gate.series)
        value = getattr(series, gate.percentile) if series else None
        status: GateStatus = "not shown" if value is None else "met" if value <= gate.target else "missed"
        return GateResult(status=status, observed=value, n=series.n if series else 0, **common)
    found = metrics[gate.metric]
    if isinstance(gate, CountGate):
        status = "not shown" if found.n == 0 else "met" if found.hits <= gate.target else "missed"
        return GateResult(status=status, observed=found.hits, n=found.n, hits=found.hits, low=found.low,
                          high=found.high, **common)
    return GateResult(status=rate_status(found, gate.op, gate.target), observed=found.rate, n=found.n,
                      hits=found.hits, low=found.low, high=found.high, **common)


def check_gates(metrics: Mapping[str, Interval], latency: LatencyReport, path: Path = THRESHOLDS) -> list[GateResult]:
    return [judge(name, gate, metrics, latency) for name, gate in load_gates(path).items()]


def exit_code(results: list[GateResult]) -> int:
    """1 when any gate is missed; "not shown" is not a miss (the evidence is too thin to say)."""
    return 1 if any(r.status == "missed" for r in results) else 0
