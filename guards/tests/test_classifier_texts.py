"""The desk's written training texts: labelled as each guard needs, in many languages, no repeats."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from guards.classifier.data import written
from guards.classifier.splits import normalise


@pytest.mark.parametrize(("guard", "labels"), [("judge", {"desk:written-retail": 0, "desk:written-off_topic": 0,
                                                          "desk:written-attacks": 1}),
                                               ("guardrail", {"desk:written-retail": 0,
                                                              "desk:written-off_topic": 1})])
def test_each_guard_gets_its_labels(guard: str, labels: dict[str, int]) -> None:
    got = {e.source: e.label for e in written(guard)}  # type: ignore[arg-type]
    assert got == labels


@pytest.mark.parametrize("source", ["desk:written-retail", "desk:written-off_topic", "desk:written-attacks"])
def test_every_family_spans_many_languages_with_english_not_the_bulk(source: str) -> None:
    langs = Counter(e.tags["lang"] for e in written("judge") if e.source == source)
    assert len(langs) >= 15 and langs["en"] < 0.75 * sum(langs.values()), langs


def test_no_text_is_written_twice() -> None:
    texts = [normalise(e.text) for e in written("judge")]
    assert [t for t, n in Counter(texts).items() if n > 1] == []


def test_every_language_tag_is_a_language_code() -> None:
    # YAML reads a bare `lang: no` (Norwegian) as False, which then passed for a language.
    tags = {e.tags["lang"] for e in written("judge")}
    assert {t for t in tags if not re.fullmatch(r"[a-z]{2,3}(-[A-Za-z]{2,4})?", t)} == set()
