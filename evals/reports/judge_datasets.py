"""Block and false-block rates of the Security Judge on the public development sets.

    .venv/bin/python -m evals.reports.judge_datasets [DATASETS_DIR] [--model offline] [--show N]

Attack sets: JailbreakBench prompts and goals, Giskard injections, Gandalf previews. Benign sets:
banking77 test, tau-bench retail user turns, CLINC150 in-scope test. For each set it prints how
many messages the pattern tier blocks, the fast path allows, and how many are left to the model
tier; with `--model offline` it also runs the offline judge model on those and prints the final
block rate. JailbreakBench `response` fields (harmful model output) are never read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from guards.classifier import datasets
from guards.judge import JudgeEngine, ModelTier, RuleSet, RulesOnly


def jailbreakbench_goals(root: Path) -> list[str]:
    seen: dict[str, None] = {}
    for path in sorted((root / "jailbreakbench").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for record in data.get("jailbreaks", []) if isinstance(data, dict) else []:
            if record.get("goal"):
                seen.setdefault(record["goal"], None)
    return list(seen)


def load_sets(root: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    clinc = datasets.clinc_split(root)
    attacks = {
        "jailbreakbench prompts": datasets.jailbreakbench_prompts(root),
        "jailbreakbench goals": jailbreakbench_goals(root),
        "giskard injections": datasets.giskard_injections(root),
        "gandalf previews": datasets.gandalf_previews(root),
    }
    benign = {
        "banking77 test": [text for text, _ in datasets.banking77(root)],
        "tau-bench user turns": datasets.tau_user_turns(root),
        "clinc150 in-scope test": clinc["on_topic"] + clinc["neutral"] + clinc["off_topic"],
    }
    return attacks, benign


async def _score(engine: JudgeEngine, texts: Sequence[str], use_model: bool) -> tuple[Counter[str], Counter[str]]:
    """Counts of (tier, verdict) outcomes and of pattern rules hit."""
    outcomes: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    for text in texts:
        verdict = engine.decide_rules(text)
        if verdict is None and use_model:
            verdict = await engine.decide(text)
        outcomes[f"{verdict.tier}:{verdict.verdict}" if verdict else "undecided"] += 1
        if verdict is not None and verdict.tier == "pattern":
            rules.update(verdict.rules)
    return outcomes, rules


def _pct(n: int, total: int) -> str:
    return f"{n / total:6.1%}" if total else "   n/a"


async def report(root: Path, model_tier: ModelTier | None, show: int) -> None:
    engine = JudgeEngine(RuleSet.load(), model_tier or RulesOnly())
    attacks, benign = load_sets(root)
    header = f"{'set':<26} {'n':>6} {'pattern':>8} {'fast':>7} {'to model':>9}"
    print(header + (f" {'model blk':>9} {'total blk':>9}" if model_tier else ""))
    for title, sets in (("attacks (block rate)", attacks), ("benign (false-block rate)", benign)):
        print(f"-- {title}")
        for name, texts in sets.items():
            outcomes, rules = await _score(engine, texts, model_tier is not None)
            n = len(texts)
            pattern, fast = outcomes["pattern:block"], outcomes["fast_path:allow"]
            line = f"{name:<26} {n:>6} {_pct(pattern, n):>8} {_pct(fast, n):>7} {_pct(n - pattern - fast, n):>9}"
            if model_tier:
                line += f" {_pct(outcomes['model:block'], n):>9} {_pct(pattern + outcomes['model:block'], n):>9}"
            print(line)
            if show and sets is benign and rules:
                print("   rules:", ", ".join(f"{rule} {count}" for rule, count in rules.most_common()))
                for text in [t for t in texts if (v := engine.decide_rules(t)) and v.tier == "pattern"][:show]:
                    print("   false block:", text[:140].replace("\n", " "))


def _offline_model(threshold: float | None) -> ModelTier:
    from guards.classifier.offline_llm import OfflineJudgeLlm
    from guards.judge.model_tier import LlmJudgeTier
    from pipeline.core.settings import Settings

    cut = threshold if threshold is not None else Settings.model_fields["judge_model_threshold"].default
    return LlmJudgeTier(OfflineJudgeLlm.build(cut))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", nargs="?", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--model", choices=["offline"], help="also run this model tier on undecided messages")
    parser.add_argument("--threshold", type=float, help="offline judge threshold (default: the setting's)")
    parser.add_argument("--show", type=int, default=0, help="print up to N false blocks per benign set")
    args = parser.parse_args(argv)
    model = _offline_model(args.threshold) if args.model == "offline" else None
    asyncio.run(report(args.root, model, args.show))


if __name__ == "__main__":
    main()
