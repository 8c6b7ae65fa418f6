"""p50/p95 of the Judge's in-process rule decision (`decide_rules`) over the case files.

    .venv/bin/python -m evals.benchmarks.bench_judge [--rounds N]

Target on this machine: p50 <= 0.3 ms. Each message is timed separately, after one warm-up pass.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

import yaml

from guards.judge import JudgeEngine, RuleSet, RulesOnly

CASES = Path(__file__).resolve().parents[1] / "cases" / "judge"


def _texts(name: str) -> list[str]:
    return [case["text"] for case in yaml.safe_load((CASES / name).read_text("utf-8"))["cases"]]


def _time(engine: JudgeEngine, texts: Sequence[str], rounds: int) -> list[float]:
    for text in texts:
        engine.decide_rules(text)
    samples = []
    for _ in range(rounds):
        for text in texts:
            start = time.perf_counter()
            engine.decide_rules(text)
            samples.append(time.perf_counter() - start)
    return samples


def _line(name: str, samples: list[float]) -> str:
    q = [value * 1e3 for value in statistics.quantiles(samples, n=100)]
    return f"{name:<8} n={len(samples):>6}  p50={q[49]:.3f} ms  p95={q[94]:.3f} ms  max={max(samples) * 1e3:.3f} ms"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    engine = JudgeEngine(RuleSet.load(), RulesOnly())
    sets = {"attacks": _texts("attacks.yaml"), "legit": _texts("legit.yaml")}
    sets["all"] = sets["attacks"] + sets["legit"]
    print("Judge decide_rules (pattern tier + fast path), in process")
    for name, texts in sets.items():
        print(_line(name, _time(engine, texts, args.rounds)))


if __name__ == "__main__":
    main()
