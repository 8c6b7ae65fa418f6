"""Identifiers that carry their own proof: card numbers (Luhn), IBANs (mod 97), US SSNs (issuance rules).

A candidate regex finds digit groups; python-stdnum decides. A run of groups may be followed by an
unrelated group ("4111 1111 1111 1111 2024"), so a failed candidate is retried without its trailing
groups before it is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stdnum import iban, luhn
from stdnum.exceptions import ValidationError
from stdnum.us import ssn

from guards.masker.base import Span, keyword_pattern, load_terms, mentions

_CONTEXT_WINDOW = 30
_SEPARATOR = re.compile(r"[ -]")


def _prefixes(candidate: str, separators: str) -> Iterator[str]:
    """`candidate`, then each shorter prefix that ends where a group ends, longest first."""
    yield candidate
    for i in range(len(candidate) - 1, 0, -1):
        if candidate[i] in separators and candidate[i - 1] not in separators:
            yield candidate[:i]


class CardDetector:
    """13–19 digit card numbers passing Luhn; 12 digits (short Maestro) only after a card word."""

    type = "CARD"

    def __init__(self) -> None:
        # Look-behinds follow the first digit so that `re` can skip quickly to digits.
        self._candidate = re.compile(r"\d(?<![\w.,/#+-]\d)(?:[ -]?\d){11,18}(?!\w|[.,/-]\d)")
        words = load_terms("context_words.yaml")
        self._card_words = keyword_pattern(words["card"])
        self._other_words = keyword_pattern(words["not_card"])

    def find(self, text: str) -> list[Span]:
        spans = []
        for match in self._candidate.finditer(text):
            start = match.start()
            card_context = mentions(self._card_words, text, start, _CONTEXT_WINDOW)
            if not card_context and mentions(self._other_words, text, start, _CONTEXT_WINDOW, same_clause=True):
                continue
            for prefix in _prefixes(match.group(), " -"):
                if self._is_card(prefix, card_context):
                    spans.append(Span(self.type, start, start + len(prefix)))
                    break
        return spans

    @staticmethod
    def _is_card(candidate: str, card_context: bool) -> bool:
        groups = _SEPARATOR.split(candidate)
        digits = "".join(groups)
        shortest = 12 if card_context else 13
        if not shortest <= len(digits) <= 19 or len(set(digits)) == 1:
            return False  # the cheap checks first: most retried prefixes are too short
        if len(groups) > 1 and (len(set(_SEPARATOR.findall(candidate))) > 1 or not _card_grouping(groups)):
            return False
        return luhn.is_valid(digits)


def _card_grouping(groups: list[str]) -> bool:
    """Cards are printed in groups of 3–6 digits (4-4-4-4, 4-6-5, 4-6-4, 5-5-5-4), except that a
    13–19 digit number printed in fours ends in a short group: 4-4-4-1, 4-4-4-2, 4-4-4-4-3."""
    *leading, last = groups
    if all(3 <= len(g) <= 6 for g in groups):
        return True
    return len(last) < 3 and all(len(g) == 4 for g in leading)


class IbanDetector:
    """IBANs, compact or in spaced groups, any case; stdnum checks country length, BBAN shape and mod 97."""

    type = "IBAN"

    def __init__(self) -> None:
        # A match begins at the check digits and looks behind for the country code, so `re` skips
        # to digits instead of trying every letter; the IBAN itself starts two characters earlier.
        self._candidate = re.compile(
            r"\d(?<=(?<![\w-])[A-Z]{2}\d)\d(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,3})?(?!\w)", re.IGNORECASE
        )

    def find(self, text: str) -> list[Span]:
        spans = []
        for match in self._candidate.finditer(text):
            start = match.start() - 2
            for prefix in _prefixes(text[start : match.end()], " -"):
                if iban.is_valid(prefix):
                    spans.append(Span(self.type, start, start + len(prefix)))
                    break
        return spans


class SsnDetector:
    """US SSNs written AAA-GG-SSSS (or with spaces); nine bare digits only after an SSN word."""

    type = "SSN"

    def __init__(self) -> None:
        # One scan for both forms: they differ at the fourth character, and neither can start inside
        # the other (the look-behind refuses a digit or "-" before the first digit).
        self._candidate = re.compile(
            r"\d(?<![\w.-]\d)\d\d(?:(?P<separator>[- ])\d{2}(?P=separator)\d{4}|\d{6})(?![\w-]|[.,]\d)"
        )
        self._ssn_words = keyword_pattern(load_terms("context_words.yaml")["ssn"])

    def find(self, text: str) -> list[Span]:
        return [
            Span(self.type, m.start(), m.end())
            for m in self._candidate.finditer(text)
            if (m["separator"] or mentions(self._ssn_words, text, m.start(), _CONTEXT_WINDOW)) and self._valid(m[0])
        ]

    @staticmethod
    def _valid(candidate: str) -> bool:
        try:
            ssn.validate(candidate.replace(" ", "-"))
        except ValidationError:
            return False
        return True
