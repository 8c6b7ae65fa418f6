"""How often the offline agent reads a customer message as the intent it carries.

    .venv/bin/python -m evals.reports.intent_accuracy [--grid]

Cases: `pipeline/models/tests/cases/intent_dev.yaml` (dev texts of our case files, labelled: the
intent model's three numbers in intents.yaml are calibrated on these) and `intent_test.yaml` (written apart
from the exemplars and never calibrated on). Prints accuracy in English and in other languages
with n and a 95 % Wilson interval, and every miss (on `test` also on the cases no exemplar or dev
text is a near copy of); `--grid` scores min_probability x min_similarity x keyword_logit on `dev`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict

from guards.classifier.embedders import shared_e5
from guards.classifier.splits import PARAPHRASE
from pipeline.core.intervals import wilson
from pipeline.models.exemplars import TextEmbedder
from pipeline.models.offline_support import OfflineSupportLlm

CASES_DIR = Path(__file__).resolve().parents[2] / "pipeline" / "models" / "tests" / "cases"
DEV, TEST = CASES_DIR / "intent_dev.yaml", CASES_DIR / "intent_test.yaml"
MIN_PROBABILITIES = np.round(np.arange(0.0, 0.71, 0.05), 3)
KEYWORD_LOGITS = (0.0, 1.0, 2.0)
MIN_SIMILARITIES = (0.0, 0.80, 0.82, 0.84, 0.86, 0.88)


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


def recalibrated(model: OfflineSupportLlm, **numbers: float) -> OfflineSupportLlm:
    """`model` with other calibration numbers of intents.yaml (its fitted intent model is reused)."""
    return OfflineSupportLlm(recognizer=model.recognizer.recalibrated(**numbers))


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


def unseen(cases: list[IntentCase], seen: list[str], embedder: TextEmbedder) -> list[IntentCase]:
    """The cases none of the `seen` texts is a near copy of (e5 cosine below `PARAPHRASE`): short
    customer phrases come out alike even when written apart, and a near copy is half an answer."""
    nearest = (embedder.embed([c.text for c in cases]) @ embedder.embed(seen).T).max(axis=1)
    return [c for c, score in zip(cases, nearest, strict=True) if score < PARAPHRASE]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="score the three calibrated numbers on dev")
    args = parser.parse_args()
    embedder = shared_e5()
    dev = load_cases(DEV)
    shipped = OfflineSupportLlm.build(embedder)
    report("dev", dev, shipped)
    test = load_cases(TEST)
    report("test", test, shipped)
    exemplars = [e.text for spec in shipped.recognizer.data.intents.values() for e in spec.exemplars]
    strict = unseen(test, exemplars + [c.text for c in dev], embedder)
    print(f"test, no near copy among exemplars and dev (e5 cosine < {PARAPHRASE}): "
          f"{summary(strict, hits(shipped, strict))}")
    if args.grid:
        for logit in KEYWORD_LOGITS:
            for similarity in MIN_SIMILARITIES:
                row = [sum(hits(recalibrated(shipped, min_probability=float(p), min_similarity=similarity,
                                             keyword_logit=logit), dev)) for p in MIN_PROBABILITIES]
                print(f"keyword_logit {logit:.1f} min_similarity {similarity:.2f}: "
                      + " ".join(f"{p:.2f}:{n}" for p, n in zip(MIN_PROBABILITIES, row, strict=True)))

if __name__ == "__main__":
    main()
