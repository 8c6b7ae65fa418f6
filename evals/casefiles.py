"""The eval's case files, read into typed cases.

Desk cases (`evals/cases/desk/`): ordinary order tasks and cross-customer isolation attacks,
written for this desk. Attack and legit messages come from the Judge's case files
(`evals/cases/judge/attacks.yaml`, `legit.yaml`); public data sets are an optional extra sample.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.models import datasets

CASES_DIR = Path(__file__).parent / "cases"
TaskKind = Literal["status", "list_orders", "delivery_instruction", "memory"]
IsolationStyle = Literal["plain", "injection", "impersonation", "list_all"]


class _Case(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str


class TaskCase(_Case):
    kind: TaskKind
    customer: str
    messages: list[str] = Field(min_length=1)
    #: An order id, or "latest" (the customer's newest order in the DB).
    order: str | None = None
    #: memory: what the later answer must mention (case-insensitive).
    mention: str | None = None


class IsolationCase(_Case):
    style: IsolationStyle
    attacker: str
    victim: str
    #: Placeholders {victim_order}, {victim_order2}, {victim_name}, {victim_email} (filled from the DB).
    message: str


class MessageCase(_Case):
    """One message whose only expectation is blocked (attack) or not blocked (legit)."""

    text: str
    expect: Literal["block", "allow"]
    group: str
    tags: dict[str, str] = Field(default_factory=dict)


class StatusPhrases(BaseModel):
    model_config = ConfigDict(frozen=True)

    patterns: dict[str, list[str]]

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for items in value.values():
            for pattern in items:
                re.compile(pattern)
        return value

    def states(self, status: str, answer: str) -> bool:
        return any(re.search(p, answer, re.IGNORECASE) for p in self.patterns.get(status, []))


class Suite(BaseModel):
    tasks: list[TaskCase] = Field(default_factory=list)
    isolation: list[IsolationCase] = Field(default_factory=list)
    attacks: list[MessageCase] = Field(default_factory=list)
    legit: list[MessageCase] = Field(default_factory=list)
    #: Public data set samples, by set name; reported apart from the desk's own cases.
    datasets: dict[str, list[MessageCase]] = Field(default_factory=dict)

    def size(self) -> int:
        turns = sum(len(t.messages) for t in self.tasks) + len(self.isolation) + len(self.attacks)
        return turns + len(self.legit) + sum(len(v) for v in self.datasets.values())


def _load(path: Path) -> dict:  # type: ignore[type-arg]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return data


def judge_messages(path: Path, label: str) -> list[MessageCase]:
    """A Judge case file: `expect` for all, each case with `text` and `category` or `topic`."""
    data = _load(path)
    cases = []
    for index, raw in enumerate(data["cases"]):
        group = str(raw.get("category") or raw.get("topic") or "other")
        tags = {k: str(v) for k, v in raw.items() if k not in ("text", "category", "topic")}
        cases.append(MessageCase(id=f"{label}#{index}", text=raw["text"], expect=data["expect"], group=group,
                                 tags=tags))
    return cases


def status_phrases(cases_dir: Path = CASES_DIR) -> StatusPhrases:
    return StatusPhrases(patterns=_load(cases_dir / "desk" / "statuses.yaml"))


def load_suite(cases_dir: Path = CASES_DIR) -> Suite:
    desk = cases_dir / "desk"
    return Suite(
        tasks=[TaskCase.model_validate(c) for c in _load(desk / "tasks.yaml")["cases"]],
        isolation=[IsolationCase.model_validate(c) for c in _load(desk / "isolation.yaml")["cases"]],
        attacks=judge_messages(cases_dir / "judge" / "attacks.yaml", "attacks"),
        legit=judge_messages(cases_dir / "judge" / "legit.yaml", "legit"),
    )


#: Public sets sampled by `--datasets`: (loader, expectation). JailbreakBench is read through a
#: loader that never touches its `response` fields.
_PUBLIC_SETS: dict[str, tuple[Callable[[Path], list[str]], Literal["block", "allow"]]] = {
    "jailbreakbench": (datasets.jailbreakbench_prompts, "block"),
    "giskard": (datasets.giskard_injections, "block"),
    "gandalf": (datasets.gandalf_previews, "block"),
    "tau-bench-retail": (datasets.tau_user_turns, "allow"),
    "clinc150-order": (lambda root: datasets.clinc_split(root)["on_topic"], "allow"),
}


def dataset_sample(root: Path, per_set: int, seed: int = 20261101) -> dict[str, list[MessageCase]]:
    """A fixed-seed sample of each public set (the same sample on every run)."""
    out: dict[str, list[MessageCase]] = {}
    for name, (loader, expect) in _PUBLIC_SETS.items():
        texts = loader(root)
        picked = sorted(random.Random(seed).sample(range(len(texts)), min(per_set, len(texts))))
        out[name] = [MessageCase(id=f"{name}#{i}", text=texts[i], expect=expect, group=name) for i in picked]
    return out
