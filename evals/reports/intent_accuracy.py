"""How often the offline agent reads a customer message as the intent it carries.

    .venv/bin/python -m evals.reports.intent_accuracy [--grid]

Cases: `pipeline/models/tests/cases/intent_dev.yaml` (dev texts of our case files, labelled: the
intent threshold, bonus and margin are calibrated on these) and `intent_test.yaml` (written apart
from the exemplars and never calibrated on). Prints accuracy in English and in other languages
with n and a 95 % Wilson interval, and every miss (on `test` also on the cases no exemplar or dev
text is a near copy of); `--grid` scores threshold x bonus x margin
around the shipped values on `dev` only.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict

from guards.classifier.embedders import shared_e5
from pipeline.core.intervals import wilson
from pipeline.models.exemplars import TextEmbedder, load_data_file
from pipeline.models.intents import IntentData, IntentRecognizer
from pipeline.models.offline_support import OfflineSupportLlm

CASES_DIR = Path(__file__).resolve().parents[2] / "pipeline" / "models" / "tests" / "cases"
DEV, TEST = CASES_DIR / "intent_dev.yaml", CASES_DIR / "intent_test.yaml"
THRESHOLDS = np.round(np.arange(0.70, 0.951, 0.01), 3)
BONUSES = (0.0, 0.02, 0.04, 0.06, 0.08, 0.10, 0.15)
MARGINS = (0.001, 0.01, 0.02, 0.03, 0.05, 0.08, 10.0)
#: The guards' paraphrase-leak bound (guards/tests): at or above it, two texts say the same thing.
NEAR_COPY = 0.955


class IntentCase(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    intents: frozenset[str]
    lang: str = "en"


def load_cases(path: Path = DEV) -> list[IntentCase]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    groups = {"status": frozenset(raw["status"])}
    return [IntentCase(text=c["text"], lang=c.get("lang", "en"),
                       intents=frozenset().union(*(groups.get(i, {i}) for i in c["intents"])))
            for c in raw["cases"]]


def hits(model: OfflineSupportLlm, cases: Iterable[IntentCase]) -> list[bool]:
    return [model.recognise(c.text).intent in c.intents for c in cases]


def agent(embedder: TextEmbedder, *, threshold: float | None = None, bonus: float | None = None,
          margin: float | None = None) -> OfflineSupportLlm:
    data = IntentData.model_validate(load_data_file("intents.yaml"))
    changes = {k: v for k, v in (("threshold", threshold), ("keyword_bonus", bonus), ("margin", margin))
               if v is not None}
    return OfflineSupportLlm(recognizer=IntentRecognizer(embedder, data.model_copy(update=changes)))


def summary(cases: list[IntentCase], right: list[bool]) -> str:
    parts = []
    for label, keep in (("all", lambda c: True), ("English", lambda c: c.lang == "en"),
                        ("other languages", lambda c: c.lang != "en")):
        picked = [r for c, r in zip(cases, right, strict=True) if keep(c)]
        low, high = wilson(sum(picked), len(picked))
        parts.append(f"{label} {sum(picked)}/{len(picked)} ({sum(picked) / max(len(picked), 1):.1%}"
                     f" [{low:.1%}-{high:.1%}])")
    return ", ".join(parts)


def report(name: str, cases: list[IntentCase], model: OfflineSupportLlm) -> None:
    right = hits(model, cases)
    print(f"{name}: {summary(cases, right)}")
    for case, ok in zip(cases, right, strict=True):
        if not ok:
            match = model.recognise(case.text)
            print(f"  miss [{case.lang}] {case.text!r}: {match.intent} {match.score} {match.evidence}")


def unseen(cases: list[IntentCase], embedder: TextEmbedder, data: IntentData) -> list[IntentCase]:
    """The cases no exemplar or dev text is a near copy of (e5 cosine below `NEAR_COPY`): short
    customer phrases come out alike even when written apart, and a near copy is half an answer."""
    seen = [e.text for spec in data.intents.values() for e in spec.exemplars] + [c.text for c in load_cases(DEV)]
    nearest = (embedder.embed([c.text for c in cases]) @ embedder.embed(seen).T).max(axis=1)
    return [c for c, score in zip(cases, nearest, strict=True) if score < NEAR_COPY]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="score threshold x bonus x margin on dev")
    args = parser.parse_args()
    embedder = shared_e5()
    dev = load_cases(DEV)
    shipped = agent(embedder)
    report("dev", dev, shipped)
    test = load_cases(TEST)
    report("test", test, shipped)
    strict = unseen(test, embedder, IntentData.model_validate(load_data_file("intents.yaml")))
    print(f"test, no near copy among exemplars and dev (e5 cosine < {NEAR_COPY}): "
          f"{summary(strict, hits(shipped, strict))}")
    if args.grid:
        for bonus in BONUSES:
            for margin in MARGINS:
                row = [sum(hits(agent(embedder, threshold=float(t), bonus=bonus, margin=margin), dev))
                       for t in THRESHOLDS]
                print(f"bonus {bonus:.2f} margin {margin:.3f}: "
                      + " ".join(f"{t:.2f}:{n}" for t, n in zip(THRESHOLDS, row, strict=True)))


if __name__ == "__main__":
    main()
