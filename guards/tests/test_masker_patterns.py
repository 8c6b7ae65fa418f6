"""The address patterns are built for speed; these check that each rewrite keeps its meaning.

The term alternations are grouped under their first letter, and the street-prefix pattern reads
that letter with a character class before checking it behind. Both must match exactly what the
plain, flat alternation of the same terms matches, in either case mode.
"""

from __future__ import annotations

import functools
import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guards.masker.address import _alternation, _case_variants, _term
from guards.masker.base import load_terms

TERMS = load_terms("address_terms.yaml")
LISTS = sorted(TERMS)
PROPERTY = settings(max_examples=100, deadline=None, database=None)


@functools.cache
def compiled(name: str, flags: str, form: str) -> re.Pattern[str]:
    """The `form` of list `name`: "flat" as first written (every term a branch, longest first),
    "grouped" as built now, or "first read" (the first letter consumed before the alternation)."""
    words = TERMS[name]
    if form == "flat":
        return re.compile(f"{flags}(?:" + "|".join(_term(t) for t in sorted(set(words), key=len, reverse=True)) + ")")
    if form == "grouped":
        return re.compile(f"{flags}(?:{_alternation(words)})")
    return re.compile(f"{flags}.(?:{_alternation(words, first_read=True)})", re.DOTALL)


def samples(words: list[str]) -> st.SearchStrategy[str]:
    """Text that starts like a term: a term, changed in case, cut short or continued."""
    term = st.sampled_from(words)
    changed = st.tuples(term, st.sampled_from([str.lower, str.upper, str.title, str.casefold])).map(
        lambda pair: pair[1](pair[0]))
    cut = st.tuples(term, st.integers(1, 6)).map(lambda pair: pair[0][: pair[1]])
    tail = st.text(alphabet="abcéx. /-1", max_size=4)
    return st.tuples(st.one_of(term, changed, cut), tail).map("".join)


@pytest.mark.parametrize("form", ["grouped", "first read"])
@pytest.mark.parametrize("name", LISTS)
@pytest.mark.parametrize("flags", ["", "(?i)"], ids=["case-sensitive", "any-case"])
@PROPERTY
@given(data=st.data())
def test_a_fast_form_matches_what_the_flat_alternation_matched(form: str, name: str, flags: str,
                                                               data: st.DataObject) -> None:
    text = data.draw(samples(TERMS[name]))
    fast = compiled(name, flags, form).match(text)
    plain = compiled(name, flags, "flat").match(text)
    assert (fast and fast.span()) == (plain and plain.span())


def test_case_variants_are_every_code_point_that_matches() -> None:
    letters = "".join(term[0] for term in TERMS["prefix_abbreviations"])
    pattern = re.compile(f"(?i:[{re.escape(letters)}])")
    everything = {c for c in map(chr, range(sys.maxunicode + 1)) if pattern.fullmatch(c)}
    assert set(_case_variants(letters)) == everything
    assert "ſ" in everything  # re matches the long s to "s": the scan is not just upper and lower
