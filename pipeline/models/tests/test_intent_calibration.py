"""The offline agent's intents: calibrated on the desk's `dev` texts, measured on texts written
apart from its exemplars (`cases/intent_test.yaml`, never calibrated on)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evals.reports.intent_accuracy import DEV, MIN_PROBABILITIES, TEST, IntentCase, hits, load_cases, recalibrated
from guards.classifier.embedders import E5Embedder
from pipeline.models.exemplars import load_data_file
from pipeline.models.intents import IntentData
from pipeline.models.offline_support import OfflineSupportLlm

DEV_CASES = load_cases(DEV)


def test_the_shipped_min_probability_is_near_the_best_on_dev(e5: E5Embedder) -> None:
    shipped = OfflineSupportLlm.build(e5)
    best = max(sum(hits(recalibrated(shipped, min_probability=float(p)), DEV_CASES)) for p in MIN_PROBABILITIES)
    assert sum(hits(shipped, DEV_CASES)) >= best - 1


def _share_right(cases: list[IntentCase], right: list[bool], *, english: bool) -> float:
    picked = [r for c, r in zip(cases, right, strict=True) if (c.lang == "en") is english]
    return sum(picked) / len(picked)


@pytest.mark.parametrize(("path", "english_floor", "other_floor"), [(DEV, 0.9, 0.95), (TEST, 0.9, 0.9)],
                         ids=["dev", "held-out"])
def test_most_messages_in_every_language_get_their_intent(e5: E5Embedder, path: Path, english_floor: float,
                                                          other_floor: float) -> None:
    cases = load_cases(path)
    right = hits(OfflineSupportLlm.build(e5), cases)
    assert _share_right(cases, right, english=True) >= english_floor
    assert _share_right(cases, right, english=False) >= other_floor


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def test_no_held_out_text_is_a_dev_case_or_an_exemplar() -> None:
    data = IntentData.model_validate(load_data_file("intents.yaml"))
    seen = {_normal(c.text) for c in DEV_CASES} | {
        _normal(e.text) for spec in data.intents.values() for e in spec.exemplars}
    assert not [c.text for c in load_cases(TEST) if _normal(c.text) in seen]
