"""What every detector shares: the span it reports and how it looks at the words before a match."""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import resources
from typing import NamedTuple, Protocol

import yaml

#: The placeholder type names, in the order that breaks ties between overlapping detections:
#: checksummed and unambiguous shapes first, the looser heuristics (PHONE, ADDRESS) last.
PRIORITY: tuple[str, ...] = ("EMAIL", "IBAN", "CARD", "SSN", "IP", "PHONE", "ADDRESS")
#: Types found by heuristics rather than by a checksum or an unambiguous shape. Between two of
#: these the longer detection wins ("17151 2450 Crown St": the street, not a phone "17151 2450").
HEURISTIC: frozenset[str] = frozenset({"PHONE", "ADDRESS"})


class Span(NamedTuple):
    """One detection: a type name and code-point offsets into the input (end exclusive)."""

    type: str
    start: int
    end: int


class Detector(Protocol):
    """Finds every span of one PII type in a text. Patterns are compiled in `__init__`."""

    type: str

    def find(self, text: str) -> list[Span]: ...


def load_terms(name: str) -> dict[str, list[str]]:
    """A vocabulary file shipped next to this module (lists of words keyed by their role)."""
    terms: dict[str, list[str]] = yaml.safe_load(resources.files(__package__).joinpath(name).read_text("utf-8"))
    return terms


def keyword_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """A case-insensitive pattern matching any of `words` as whole words."""
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def mentions(pattern: re.Pattern[str], text: str, start: int, window: int) -> bool:
    """Whether `pattern` occurs in the `window` characters before `start`."""
    return pattern.search(text, max(0, start - window), start) is not None


def last_mention(pattern: re.Pattern[str], text: str, start: int, window: int) -> int:
    """Where the last occurrence of `pattern` in the `window` characters before `start` ends; -1 if none."""
    end = -1
    for match in pattern.finditer(text, max(0, start - window), start):
        end = match.end()
    return end
