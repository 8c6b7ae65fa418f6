"""What every detector shares: the span it reports and how it looks at the words before a match."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from importlib import resources
from typing import NamedTuple, Protocol

import yaml

#: The placeholder type names, in the order that breaks ties between overlapping detections:
#: checksummed and unambiguous shapes first, the looser heuristics (PHONE, ADDRESS) last.
PRIORITY: tuple[str, ...] = ("EMAIL", "IBAN", "CARD", "SSN", "IP", "PHONE", "ADDRESS", "NAME")
#: Types found by heuristics rather than by a checksum or an unambiguous shape. Between two of
#: these the longer detection wins ("17151 2450 Crown St": the street, not a phone "17151 2450").
HEURISTIC: frozenset[str] = frozenset({"PHONE", "ADDRESS", "NAME"})


class Span(NamedTuple):
    """One detection: a type name and code-point offsets into the input (end exclusive)."""

    type: str
    start: int
    end: int


class Detector(Protocol):
    """Finds every span of one PII type in a text. Patterns are compiled in `__init__`."""

    type: str

    def find(self, text: str) -> list[Span]: ...


@functools.cache
def load_terms(name: str) -> dict[str, list[str]]:
    """A vocabulary file shipped next to this module (lists of words keyed by their role).

    Read once per process: four detectors share `context_words.yaml`. Callers must not change it.
    """
    terms: dict[str, list[str]] = yaml.safe_load(resources.files(__package__).joinpath(name).read_text("utf-8"))
    return terms


_CLAUSE_STOP = re.compile(r"[\n?!;]|\.(?=\s+[^\d\s])")


def keyword_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """A case-insensitive pattern matching any of `words` as whole words.

    Before a word character `\\b` means what `(?<!\\w)` does, and `re` tries it faster (a text-long
    search: ~5x); the look-behind stays only for a word that opens with punctuation.
    """
    ordered = sorted(words, key=len, reverse=True)
    lead = r"\b" if all(re.match(r"\w", w) for w in ordered) else r"(?<!\w)"
    return re.compile(rf"{lead}(?:{grouped_alternation(ordered)})(?!\w)", re.IGNORECASE)


def grouped_alternation(words: Iterable[str]) -> str:
    """`words` as an alternation, longest first, grouped under their first letter
    ("a(?:ddress|dres)|l(?:ives at)"): `re` tries the branches of a flat alternation one by one at
    every position, and a group's only where its letter is. Within a group the longest-first order
    is kept, so the grouped pattern matches what the flat one did."""
    groups: dict[str, list[str]] = {}
    for word in sorted(words, key=len, reverse=True):
        groups.setdefault(word[0].casefold(), []).append(word)
    return "|".join(
        re.escape(group[0][0]) + "(?:" + "|".join(re.escape(w[1:]) for w in group) + ")"
        if all(w[0] == group[0][0] for w in group) else "|".join(re.escape(w) for w in group)
        for group in groups.values())


def mentions(pattern: re.Pattern[str], text: str, start: int, window: int, *, same_clause: bool = False) -> bool:
    """Whether `pattern` occurs in the `window` characters before `start` (in its clause only)."""
    return pattern.search(text, _window_start(text, start, window, same_clause), start) is not None


def last_mention(pattern: re.Pattern[str], text: str, start: int, window: int, *, same_clause: bool = False) -> int:
    """Where the last occurrence of `pattern` in the `window` characters before `start` (in its
    clause only) ends; -1 if none."""
    end = -1
    for match in pattern.finditer(text, _window_start(text, start, window, same_clause), start):
        end = match.end()
    return end


def _window_start(text: str, start: int, window: int, same_clause: bool) -> int:
    """`same_clause` stops the window after a line break, "?", "!", ";" or a sentence's full stop.

    For words that make a number harmless ("order", "zip"): in "Is that for the invoice?\nCharge
    6011111111111117" the invoice says nothing about the card. Words that make a number PII are
    not stopped there ("Phone:\n4155550132"), so a stop can only ever mask more. A "." before a
    number is no stop: "Tel. 030 901820" and "ref. 4111…" keep their word.
    """
    low = max(0, start - window)
    if same_clause:
        for stop in _CLAUSE_STOP.finditer(text, low, start):
            low = stop.end()
    return low
