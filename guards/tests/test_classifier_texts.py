"""The desk's written training texts: labelled as each guard needs, in many languages, no repeats."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from guards.classifier.data import COMPOSED, Example, composed, corpus, written
from guards.classifier.splits import normalise


def _every_written_text() -> list[Example]:
    """Each written text once: the Judge's files, and the one only the Guardrail reads."""
    return written("judge") + [e for e in written("guardrail") if e.source == "desk:written-conversation"]


@pytest.mark.parametrize(("guard", "labels"), [("judge", {("desk:written-retail", 0), ("desk:written-off_topic", 0),
                                                          ("desk:written-attacks", 1)}),
                                               ("guardrail", {("desk:written-retail", 0),
                                                              ("desk:written-off_topic", 1),
                                                              ("desk:written-conversation", 0),
                                                              ("desk:written-conversation", 1)})])
def test_each_guard_gets_its_labels(guard: str, labels: set[tuple[str, int]]) -> None:
    assert {(e.source, e.label) for e in written(guard)} == labels  # type: ignore[arg-type]


def test_a_conversation_turn_is_labelled_by_its_side() -> None:
    turns = [e for e in written("guardrail") if e.source == "desk:written-conversation"]
    assert turns and all(e.label == {"on_topic": 0, "off_topic": 1}[e.tags["side"]] for e in turns)


@pytest.mark.parametrize("source", ["desk:written-retail", "desk:written-off_topic", "desk:written-attacks",
                                    "desk:written-conversation"])
def test_every_family_spans_many_languages_with_english_not_the_bulk(source: str) -> None:
    langs = Counter(e.tags["lang"] for e in _every_written_text() if e.source == source)
    assert len(langs) >= 15 and langs["en"] < 0.75 * sum(langs.values()), langs


def test_no_text_is_written_twice() -> None:
    texts = [normalise(e.text) for e in _every_written_text()]
    assert [t for t, n in Counter(texts).items() if n > 1] == []


def test_every_language_tag_is_a_language_code() -> None:
    # YAML reads a bare `lang: no` (Norwegian) as False, which then passed for a language.
    tags = {e.tags["lang"] for e in _every_written_text()}
    assert {t for t in tags if not re.fullmatch(r"[a-z]{2,3}(-[A-Za-z]{2,4})?", t)} == set()


def test_composed_judge_texts_put_a_written_turn_before_an_attack_or_a_second_retail_turn() -> None:
    texts = written("judge")
    retail = {e.text for e in texts if e.source == "desk:written-retail"}
    attacks = {e.text for e in texts if e.source == "desk:written-attacks"}
    made = composed(texts)
    assert made == composed(texts)  # seeded: every build trains on the same texts
    assert Counter(e.label for e in made) == {1: COMPOSED, 0: COMPOSED}
    for e in made:
        tails = attacks if e.label == 1 else retail
        assert any(e.text.endswith(f" {tail}") and e.text[: -len(tail) - 1] in retail for tail in tails), e.text


def test_only_the_judge_trains_on_composed_texts() -> None:
    assert {e.source for e in corpus("guardrail").train if e.source == "desk:composed"} == set()
    assert Counter(e.label for e in corpus("judge").train if e.source == "desk:composed") == {1: COMPOSED,
                                                                                               0: COMPOSED}
