"""What a change to the Judge's rules moves: the rule tier's decision on every text we hold, before and after.

    .venv/bin/python -m evals.reports.rule_diff [--base REV] [DATASETS_DIR]

Before is `guards/judge/rules.yaml` at REV (default HEAD), after is the working tree. The texts are
every case file (the Judge's, the Guardrail's, the probes), both guards' training and held-out
texts and the public sets whole. Prints each text whose decision moved, with where it came from.
Run it before committing a pattern: a benign text that moves to "block" is a customer refused.
"""

from __future__ import annotations

import argparse
import subprocess
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from guards.classifier import datasets
from guards.classifier.data import CASE_FILES, REPO, corpus, file_cases
from guards.judge.engine import JudgeEngine, RulesOnly
from guards.judge.rules import RuleSet

RULES = Path("guards/judge/rules.yaml")


class Move(BaseModel):
    text: str
    source: str
    before: tuple[str, list[str]] | None
    after: tuple[str, list[str]] | None


def held_texts(root: Path = datasets.DEFAULT_ROOT) -> dict[str, str]:
    """Every text we hold, each with the first place it was found."""
    found: dict[str, str] = {}

    def add(source: str, texts: Iterable[str]) -> None:
        for text in texts:
            found.setdefault(text, source)

    for path in CASE_FILES:
        add(path.name, (case["text"] for case in file_cases(path)))
    for guard in ("judge", "guardrail"):
        held = corpus(guard, root)  # type: ignore[arg-type]
        add(f"{guard} corpus", (e.text for e in held.train + held.held_out))
    add("clinc150", (t for texts in datasets.clinc_split(root).values() for t in texts))
    add("task-dialogue", (t for t, _ in datasets.task_dialogue_turns(root)))
    add("xsid", (t for t, _ in datasets.xsid_utterances(root)))
    add("banking77", (t for part in ("train", "test") for t, _ in datasets.banking77(root, part)))
    whole = {"tensor-trust": datasets.tensor_trust_attacks, "bipia-code": datasets.bipia_code_attacks,
             "tau-bench": datasets.tau_user_turns, "giskard": datasets.giskard_injections,
             "jailbreakbench": datasets.jailbreakbench_prompts, "gandalf": datasets.gandalf_previews}
    for name, load in whole.items():
        add(name, load(root))
    return found


def _decision(engine: JudgeEngine, text: str) -> tuple[str, list[str]] | None:
    verdict = engine.decide_rules(text)
    return None if verdict is None else (verdict.verdict, verdict.rules)


def moves(before: RuleSet, after: RuleSet, texts: dict[str, str]) -> list[Move]:
    """The texts whose rule-tier decision (verdict and rules; None = for the model) differs."""
    old, new = JudgeEngine(before, RulesOnly()), JudgeEngine(after, RulesOnly())
    out = []
    for text, source in texts.items():
        was, now = _decision(old, text), _decision(new, text)
        if was != now:
            out.append(Move(text=text, source=source, before=was, after=now))
    return out


def rules_at(rev: str) -> RuleSet:
    shown = subprocess.run(["git", "show", f"{rev}:{RULES}"], cwd=REPO, capture_output=True, text=True, check=True)
    return RuleSet.parse(shown.stdout, source=f"{rev}:{RULES}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=datasets.DEFAULT_ROOT, help="the public data sets")
    parser.add_argument("--base", default="HEAD", help="the revision whose rules.yaml is 'before'")
    args = parser.parse_args(argv)
    texts = held_texts(args.root)
    moved = moves(rules_at(args.base), RuleSet.load(), texts)
    for move in moved:
        print(f"{move.source}: {move.before} -> {move.after} | {' '.join(move.text.split())[:160]}")
    print(f"{len(texts)} texts, {len(moved)} moved")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
