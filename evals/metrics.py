"""Aggregation of per-case results into the eval's metrics: every rate with n, hits and its interval.

Every metric carries, for each case that went the wrong way, the turn ids: open
`runs/<turn_id>.json` (or the trace with its trace id) to see why.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from pipeline.core.intervals import Interval, interval

#: Guards whose decisions get a confusion table: what the case expects against what the guard did.
GUARDS = ("sanitizer", "judge", "guardrail")
GuardAct = Literal["blocked", "passed", "not reached"]


class CaseResult(BaseModel):
    """One run of a case: `hit` is what the metric counts, `ok` whether that was the wanted way."""

    case_id: str
    turn_ids: list[str]
    hit: bool
    ok: bool
    outcome: str
    #: Breakdown keys, e.g. {"split": "test", "source": "judge/attacks.yaml", "blocked_by": "judge"}.
    groups: dict[str, str] = Field(default_factory=dict)
    reasons: list[str] = Field(default_factory=list)
    #: What the customer typed (every message of the case, in order).
    text: str = ""
    #: The step that ended the turn (blocked_by), or the outcome when no step blocked it.
    decided_by: str = ""
    #: The pipeline's own reason on the final event (a guard's verdict reason), if it gave one.
    guard_reason: str | None = None
    #: What the whole turn should do, for cases that say so (attack/off-topic: block; others: allow).
    expect: Literal["block", "allow"] | None = None
    #: Per guard, what it did on the case's last turn.
    guards: dict[str, GuardAct] = Field(default_factory=dict)


class Failure(BaseModel):
    case_id: str
    turn_ids: list[str]
    reasons: list[str]
    text: str
    decided_by: str
    guard_reason: str | None
    groups: dict[str, str]


class Rate(Interval):
    failures: list[Failure] = Field(default_factory=list)
    outcomes: dict[str, int] = Field(default_factory=dict, description="final status (or error) per run")


class Metric(Rate):
    name: str
    description: str
    by: dict[str, dict[str, Rate]] = Field(default_factory=dict)
    #: pass^k: cases whose every one of the k runs went the wanted way, of all cases.
    pass_k: Interval
    repeat: int = 1


def rate_of(results: Sequence[CaseResult], *, failures: bool = True) -> Rate:
    """The share of hits; with `failures`, every result that went the wrong way (breakdowns leave them
    to their metric, which lists each once)."""
    outcomes = Counter(r.outcome for r in results)
    wrong = [Failure(**r.model_dump(include={"case_id", "turn_ids", "reasons", "text", "decided_by",
                                             "guard_reason", "groups"})) for r in results if failures and not r.ok]
    return Rate(failures=wrong, outcomes=dict(sorted(outcomes.items())),
                **interval(sum(r.hit for r in results), len(results)).model_dump())


def pass_k(results: Sequence[CaseResult]) -> Interval:
    every: dict[str, bool] = {}
    for r in results:
        every[r.case_id] = every.get(r.case_id, True) and r.ok
    return interval(sum(every.values()), len(every))


def summarise(name: str, description: str, results: Sequence[CaseResult], repeat: int = 1) -> Metric:
    groups: dict[str, dict[str, list[CaseResult]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        for key, value in result.groups.items():
            groups[key][value].append(result)
    by = {key: {value: rate_of(members, failures=False) for value, members in sorted(values.items())}
          for key, values in sorted(groups.items())}
    return Metric(name=name, description=description, by=by, pass_k=pass_k(results), repeat=repeat,
                  **rate_of(results).model_dump())


#: guard → expected turn outcome → what the guard did → runs.
Confusion = dict[str, dict[str, dict[str, int]]]


def confusion(results: Sequence[CaseResult]) -> Confusion:
    """Per guard: cases that expect block/allow against what that guard did with them."""
    table: Confusion = {}
    for guard in GUARDS:
        counts: dict[str, Counter[str]] = {"block": Counter(), "allow": Counter()}
        for r in results:
            if r.expect is not None:
                counts[r.expect][r.guards.get(guard, "not reached")] += 1
        table[guard] = {expect: {act: counts[expect][act] for act in ("blocked", "passed", "not reached")}
                        for expect in ("block", "allow")}
    return table
