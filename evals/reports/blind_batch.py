"""Score a batch of texts written blind, once, with the committed guards, before anything else.

    .venv/bin/python -m evals.reports.blind_batch BATCH.yaml [...] [--split test] [--out DECISIONS.json]
        [--judge-model DIR] [--guardrail-model DIR]

A batch is `cases:` of `text`, `kind` (attack | retail | offtopic), `family` and `lang`, the schema
of `guards/classifier/cases/`. Each text goes the way a turn goes up to the agent: the sanitizer,
the Security Judge (patterns, fast path, model), then the Guardrail; it is blocked when any of them
stops it. Read the figures once, before the batch is split or a rule is written from it: they are
what its header and DESIGN.md report. The models are the configured ones (offline without keys),
or a candidate's (`supportdesk train GUARD --out DIR`) for the guard named: how a candidate is
measured against the rule written before it, on the same texts and in the same chain.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from google.adk.models.base_llm import BaseLlm
from pydantic import BaseModel

from guards.classifier.data import file_cases
from guards.judge.engine import JudgeEngine
from guards.judge.model_tier import LlmJudgeTier
from guards.judge.rules import RuleSet
from guards.sanitizer import sanitize
from pipeline.core.intervals import wilson
from pipeline.core.settings.guard_sections import MessageLimits, ModelSection
from pipeline.guardrail import Guardrail
from pipeline.models.factory import build_llm, build_offline

Stage = Literal["sanitizer", "judge", "guardrail", "passed"]
GuardRole = Literal["judge", "guardrail"]
GUARDS: tuple[GuardRole, ...] = ("judge", "guardrail")


class Case(BaseModel):
    """One text of a batch; other fields (a `split` written later) are ignored."""

    text: str
    kind: Literal["attack", "retail", "offtopic"]
    family: str
    lang: str


class Decision(Case):
    stage: Stage
    rules: list[str] = []

    @property
    def blocked(self) -> bool:
        return self.stage != "passed"


class Gate:
    """The guards in a turn's order, built once from the configured models, or from a candidate's
    offline model files for a guard named in `candidates` (role -> `supportdesk train --out` folder)."""

    def __init__(self, rules: RuleSet, models: ModelSection, limits: MessageLimits,
                 candidates: Mapping[GuardRole, Path] | None = None) -> None:
        def model(role: GuardRole) -> BaseLlm:
            folder = (candidates or {}).get(role)
            return build_llm(models, role) if folder is None else build_offline(models, role, folder)

        self._limits = limits
        self._judge = JudgeEngine(rules, LlmJudgeTier(model("judge")))
        self._guardrail = Guardrail(model("guardrail"), rules.fast_path)

    async def stage(self, text: str) -> tuple[Stage, list[str]]:
        cleaned = sanitize(text, max_chars=self._limits.max_message_chars, max_bytes=self._limits.max_message_bytes)
        if cleaned.rejected:
            return "sanitizer", []
        judged = await self._judge.decide(cleaned.text)
        if judged.verdict == "block":
            return "judge", judged.rules
        checked = (await self._guardrail.check(cleaned.text)).verdict
        return ("guardrail", checked.rules) if checked.verdict == "block" else ("passed", [])


async def score(gate: Gate, cases: Iterable[Case]) -> list[Decision]:
    decisions = []
    for case in cases:
        stage, rules = await gate.stage(case.text)
        decisions.append(Decision(**case.model_dump(), stage=stage, rules=rules))
    return decisions


def tally(decisions: Sequence[Decision]) -> dict[str, tuple[int, int]]:
    """(blocked, n) per kind, per kind and English or not, and per kind and family."""
    blocked: Counter[tuple[str, int, str]] = Counter()
    total: Counter[tuple[str, int, str]] = Counter()
    for d in decisions:
        language = "en" if d.lang == "en" else "other languages"
        # (kind, rank, label): a kind's total first, then by language, then by family.
        for key in ((d.kind, 0, d.kind), (d.kind, 1, f"{d.kind} / {language}"), (d.kind, 2, f"{d.kind} / {d.family}")):
            total[key] += 1
            blocked[key] += d.blocked
    return {key[2]: (blocked[key], total[key]) for key in sorted(total)}


def report(decisions: Sequence[Decision]) -> str:
    lines = []
    for key, (hits, n) in tally(decisions).items():
        low, high = wilson(hits, n)
        lines.append(f"{key:<48} blocked {hits:>4}/{n:<4} {hits / n:6.1%}  [{low:.1%}–{high:.1%}]")
    return "\n".join(lines)


def read_cases(batches: Iterable[Path], split: str | None = None) -> list[Case]:
    """The cases of every batch file, in order; only those of `split` when it is given."""
    return [Case.model_validate(case) for batch in batches
            for case in file_cases(batch) if split in (None, case.get("split"))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("batch", type=Path, nargs="+", help="YAML files with `cases:` (text, kind, family, lang)")
    parser.add_argument("--split", choices=["dev", "test"], help="only the cases of this split")
    parser.add_argument("--out", type=Path, help="write every decision here as JSON")
    for role in GUARDS:
        parser.add_argument(f"--{role}-model", type=Path, help=f"a candidate {role} model folder (train --out)")
    args = parser.parse_args(argv)
    cases = read_cases(args.batch, args.split)
    candidates = {role: folder for role in GUARDS if (folder := getattr(args, f"{role}_model")) is not None}
    run(cases, args.out, candidates)
    return 0


def run(cases: Sequence[Case], out: Path | None,
        candidates: Mapping[GuardRole, Path] | None = None) -> None:
    """Score `cases` with the configured guards (or `candidates`, as `Gate` takes them), print the
    report, and write every decision to `out`."""
    # The configured models, read from the environment as the desk reads them (offline without keys).
    gate = Gate(RuleSet.load(), ModelSection(), MessageLimits(), candidates)  # type: ignore[call-arg]
    decisions = asyncio.run(score(gate, cases))
    print(report(decisions))
    if out:
        out.write_text("[" + ",\n".join(d.model_dump_json() for d in decisions) + "]\n", "utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
