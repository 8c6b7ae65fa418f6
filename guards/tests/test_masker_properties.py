"""Properties of `Masker.mask` on arbitrary text and on arbitrary text with whole cases from
evals/cases/masker/detect.yaml and shop_pii_dev.yaml injected: the reply is the input with exactly the reported spans
replaced, spans are sorted and disjoint, only configured types appear, and every injected PII item
is covered by a redaction of its type. Whole cases are injected because some PII is recognised by
the words before it ("social security number 401728839").
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from guards.masker import SUPPORTED_TYPES, Masker
from guards.schema import MaskResult

CASES = Path(__file__).resolve().parents[2] / "evals" / "cases" / "masker"


def _located(case: dict[str, Any]) -> tuple[str, list[tuple[str, int, int]]]:
    """A case's text and its PII items as (type, start, end)."""
    located, cursor = [], 0
    for item in case["pii"]:
        start = case["text"].index(item["value"], cursor)
        cursor = start + len(item["value"])
        located.append((item["type"], start, cursor))
    return case["text"], located


SNIPPETS = [
    _located(case)
    for name in ("detect.yaml", "shop_pii_dev.yaml")
    for case in yaml.safe_load((CASES / name).read_text("utf-8"))["cases"]
    if "types" not in case
]
MASKERS = {types: Masker(types) for types in (
    SUPPORTED_TYPES, tuple(t for t in SUPPORTED_TYPES if t != "NAME"), ("EMAIL", "PHONE"), ("CARD", "IBAN", "ADDRESS"),
    ("ADDRESS", "NAME"), ())}
# Filler that cannot form a digit, an "@", or a context word such as "order" or "zip".
FILLER = st.text(alphabet="aeiouAEIOU ,;!?()é中文😀—\t", max_size=12)
SEPARATORS = st.sampled_from([" and ", " — ", "\n", "; "])
PROPERTY = settings(max_examples=300, deadline=None, database=None)


def assert_exact_reconstruction(text: str, result: MaskResult, types: tuple[str, ...]) -> None:
    spans = [(r.start, r.end) for r in result.redactions]
    assert all(0 <= start < end <= len(text) for start, end in spans)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in pairwise(spans))
    assert {r.type for r in result.redactions} <= set(types)
    pieces: list[str] = []
    cursor = 0
    for redaction in result.redactions:
        pieces += (text[cursor : redaction.start], f"[{redaction.type}]")
        cursor = redaction.end
    assert result.text == "".join([*pieces, text[cursor:]])


@PROPERTY
@given(text=st.text(max_size=300), types=st.sampled_from(list(MASKERS)))
def test_arbitrary_text_changes_only_inside_reported_spans(text: str, types: tuple[str, ...]) -> None:
    assert_exact_reconstruction(text, MASKERS[types].mask(text), types)


@PROPERTY
@given(
    parts=st.lists(st.tuples(FILLER, st.sampled_from(SNIPPETS), SEPARATORS), min_size=1, max_size=4),
    tail=FILLER,
    types=st.sampled_from(list(MASKERS)),
)
def test_injected_pii_is_covered_and_the_rest_kept(
    parts: list[tuple[str, tuple[str, list[tuple[str, int, int]]], str]], tail: str, types: tuple[str, ...]
) -> None:
    text, injected = "", []
    for filler, (snippet, located), separator in parts:
        text += f"{filler}{separator}"
        injected += [(kind, len(text) + start, len(text) + end) for kind, start, end in located]
        text += snippet + separator
    text += tail

    result = MASKERS[types].mask(text)

    assert_exact_reconstruction(text, result, types)
    for kind, start, end in injected:
        if kind in types:
            assert any(r.type == kind and r.start <= start and end <= r.end for r in result.redactions), (
                kind,
                text[start:end],
            )
