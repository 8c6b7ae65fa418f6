"""E-mail addresses and IP addresses: shapes a regex proposes and the standard library confirms."""

from __future__ import annotations

import ipaddress
import re

from guards.masker.base import Span, keyword_pattern, load_terms, mentions


class EmailDetector:
    """Addresses with a dotted domain and a letter TLD; the local part may hold any word characters."""

    type = "EMAIL"

    def __init__(self) -> None:
        self._pattern = re.compile(
            r"(?<![\w.%+-])[\w%+-]+(?:\.[\w%+-]+)*@(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+[^\W\d_]{2,63}(?![\w@-])"
        )

    def find(self, text: str) -> list[Span]:
        # The pattern opens with a look-behind, so `re` would try it at every character of the
        # answer (~0.1 ms a KB). An address holds no whitespace: only the whitespace-free run
        # around each "@" is searched, which finds exactly the same matches.
        spans = []
        at = text.find("@")
        while at >= 0:
            start = end = at
            while start > 0 and not text[start - 1].isspace():
                start -= 1
            while end < len(text) and not text[end].isspace():
                end += 1
            spans += [Span(self.type, m.start(), m.end()) for m in self._pattern.finditer(text, start, end)]
            at = text.find("@", end)
        return spans


class IpDetector:
    """IPv4 and IPv6 addresses that `ipaddress` accepts; IPv4 inside a longer dotted run is skipped."""

    type = "IP"

    def __init__(self) -> None:
        self._v4 = re.compile(r"\d(?<![\w.]\d)\d{0,2}(?:\.\d{1,3}){3}(?![\w]|\.\d)")
        # Two or more colons and at least one hex digit; times like 10:30:15 fail validation below.
        self._v6 = re.compile(
            r"(?<![\w:.])(?=[0-9A-Fa-f:]*[0-9A-Fa-f])(?:[0-9A-Fa-f]{0,4}:){2,7}"
            r"(?:[0-9A-Fa-f]{1,4}|\d{1,3}(?:\.\d{1,3}){3})?(?![\w:])"
        )
        self._v6_hint = re.compile(r":[0-9A-Fa-f]{0,4}:")
        self._version_words = keyword_pattern(load_terms("context_words.yaml")["version"])

    def find(self, text: str) -> list[Span]:
        spans = [
            Span(self.type, m.start(), m.end())
            for m in self._v4.finditer(text)
            if self._valid(m[0]) and not mentions(self._version_words, text, m.start(), 12)
        ]
        # The IPv6 pattern opens with look-arounds, costly on prose; every match holds two colons
        # with at most four hex digits between them, which a literal-led search finds fast.
        if self._v6_hint.search(text):
            v6 = self._v6.finditer(text)
            spans += [Span(self.type, m.start(), m.end()) for m in v6 if self._valid_v6(m[0])]
        return spans

    @staticmethod
    def _valid(candidate: str) -> bool:
        try:
            ipaddress.ip_address(candidate)
        except ValueError:
            return False
        return True

    @classmethod
    def _valid_v6(cls, candidate: str) -> bool:
        # "::" alone or "a::" read as addresses but are far likelier to be code or punctuation.
        hex_digits = sum(c.isalnum() for c in candidate)
        return hex_digits >= 4 and candidate.count(":") >= 2 and cls._valid(candidate)
