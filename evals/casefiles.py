"""The eval's case files, read into typed cases.

Desk cases (`evals/cases/desk/`): ordinary order tasks and cross-customer isolation attacks,
written for this desk. Message cases are every case file (outside `masker/`) with a top-level
`expect`: `block` files are attacks (or off-topic messages, when the file name says `offtopic`),
`allow` files are legitimate customer messages. Every case carries its `split`: `dev` cases may
be used to build and tune the guards, `test` cases may not; the headline figures are `test` only.
Public data sets are an optional extra sample (`evals/public_sets.py`), reported apart.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

CASES_DIR = Path(__file__).parent / "cases"
TaskKind = Literal["status", "list_orders", "delivery_instruction", "memory"]
IsolationStyle = Literal["plain", "injection", "impersonation", "list_all"]
Split = Literal["dev", "test"]
MessageSection = Literal["attack", "legit", "offtopic"]
#: Folders whose case files the eval does not replay through the desk (the Masker's own suite).
NOT_REPLAYED = frozenset({"masker"})


class CaseFileError(ValueError):
    """A case file the eval cannot use; the message names the file and the case."""


class _Case(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    split: Split


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
    """One message whose only expectation is blocked (attack, off-topic) or not blocked (legit)."""

    text: str
    expect: Literal["block", "allow"]
    #: The case's category (`category` or `topic` in the file).
    group: str
    section: MessageSection = "attack"
    #: Where the case comes from: a case file relative to the cases folder, or a public set's name.
    source: str = ""
    #: ISO 639-1 code from the case's `lang`; "en" when absent, "non-en (untagged)" for non_english.
    language: str = "en"
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
    offtopic: list[MessageCase] = Field(default_factory=list)
    #: Public data set samples, by set name; reported apart from the desk's own cases.
    datasets: dict[str, list[MessageCase]] = Field(default_factory=dict)
    _index: dict[tuple[tuple[str, str | None], str], Any] | None = PrivateAttr(None)

    def case(self, section: str, case_id: str, dataset: str | None = None) -> TaskCase | IsolationCase | MessageCase:
        """The case a run came from, by its section (and public set name, for "dataset" runs)."""
        key = (section, dataset if section == "dataset" else None)
        if self._index is None:
            pools: dict[tuple[str, str | None], list[Any]] = {
                ("task", None): self.tasks, ("isolation", None): self.isolation, ("attack", None): self.attacks,
                ("legit", None): self.legit, ("offtopic", None): self.offtopic,
                **{("dataset", name): cases for name, cases in self.datasets.items()}}
            self._index = {(pool, case.id): case for pool, cases in pools.items() for case in cases}
        return self._index[(key, case_id)]

    def size(self) -> int:
        """Turns one pass over the suite runs."""
        turns = sum(len(t.messages) for t in self.tasks) + len(self.isolation) + len(self.attacks)
        return turns + len(self.legit) + len(self.offtopic) + sum(len(v) for v in self.datasets.values())


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise CaseFileError(f"{path}: expected a mapping at the top level")
    return data


CaseT = TypeVar("CaseT", bound=_Case)


def _case(model: type[CaseT], raw: dict[str, Any], path: Path, ident: str) -> CaseT:
    if "split" not in raw:
        raise CaseFileError(f"{path}: case {ident} has no `split` (dev or test); every case needs one")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise CaseFileError(f"{path}: case {ident}: {problems}") from None


def _language(raw: dict[str, Any], group: str) -> str:
    code = raw.get("lang") or raw.get("language")
    return str(code) if code else "non-en (untagged)" if group == "non_english" else "en"


def message_cases(path: Path, cases_dir: Path = CASES_DIR) -> list[MessageCase]:
    """A message case file: `expect` for all (or per case), each case with `text` and `category` or `topic`."""
    data = _load(path)
    source = path.relative_to(cases_dir).as_posix()
    cases = []
    for index, raw in enumerate(data["cases"]):
        ident = str(raw.get("id") or f"{path.stem}#{index}")
        expect = raw.get("expect", data["expect"])
        group = str(raw.get("category") or raw.get("topic") or "other")
        section = "legit" if expect == "allow" else "offtopic" if "offtopic" in path.stem.replace("_", "") \
            else "attack"
        meta = {"id", "text", "category", "topic", "split", "expect", "lang", "language", "source"}
        # A case may name where its text came from; the file stays the first part of its source.
        origin = f"{source} · {raw['source']}" if raw.get("source") else source
        fields = {"id": ident, "text": raw.get("text"), "expect": expect, "group": group, "section": section,
                  "source": origin, "language": _language(raw, group),
                  "tags": {k: str(v) for k, v in raw.items() if k not in meta}}
        if "split" in raw:
            fields["split"] = raw["split"]
        cases.append(_case(MessageCase, fields, path, ident))
    return cases


def status_phrases(cases_dir: Path = CASES_DIR) -> StatusPhrases:
    return StatusPhrases(patterns=_load(cases_dir / "desk" / "statuses.yaml"))


def _desk(model: type[CaseT], path: Path) -> list[CaseT]:
    return [_case(model, raw, path, str(raw.get("id", index))) for index, raw in enumerate(_load(path)["cases"])]


def load_suite(cases_dir: Path = CASES_DIR) -> Suite:
    suite = Suite(tasks=_desk(TaskCase, cases_dir / "desk" / "tasks.yaml"),
                  isolation=_desk(IsolationCase, cases_dir / "desk" / "isolation.yaml"))
    for path in sorted(cases_dir.glob("*/*.yaml")):
        if path.parent.name in NOT_REPLAYED or "expect" not in _load(path):
            continue
        for case in message_cases(path, cases_dir):
            {"attack": suite.attacks, "legit": suite.legit, "offtopic": suite.offtopic}[case.section].append(case)
    return suite
