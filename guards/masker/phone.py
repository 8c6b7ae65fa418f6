"""Telephone numbers in national and international formats, validated by `phonenumbers`.

`phonenumbers.PhoneNumberMatcher` costs ~10 ms per KB per region here, so a cheap regex proposes
phone-shaped runs and only those are parsed. A candidate counts when it is a valid number in one of
the configured regions (any region when it starts with +), or when it is merely a possible number
but written in the North-American 3-3-4 shape, in separated pairs/triples ("01.84.17.61.18"), or
right after a word like "call" or "phone". Dates, amounts, and numbers after words such as "zip",
"suite" or "order" are not phones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import phonenumbers
from phonenumbers import NumberParseException

from guards.masker.base import Span, keyword_pattern, last_mention, load_terms

_CURRENCY = re.compile(r"\s?(?:[$€£¥₹]|(?:USD|EUR|GBP|CHF|SEK|NOK|DKK|PLN|CAD|AUD|kr|zł)(?!\w))")
# A candidate that starts with a date is a date (or a date and time), never a phone.
_DATE = re.compile(r"(?:\d{4}([./-])\d{1,2}\1\d{1,2}|\d{1,2}([./-])\d{1,2}\2(?:\d{4}|\d{2}))(?![\d./-]*\d)")
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_NANP = re.compile(r"(?:\+?1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}")
# "12-34-56-78", "01.84.17.61.18": pairs and triples joined by one separator, a phone's look.
_GROUPED = re.compile(r"\+?\d{2,4}(?:([ .-])\d{2,4})(?:\1\d{2,4}){2,}")
_TRUNK_PREFIX = re.compile(r"\s?\(0\)\s?")
_EXTENSION = re.compile(r"\s*(?:x|ext\.?|extension)\s*\d{1,6}$", re.IGNORECASE)


class PhoneDetector:
    """Phone numbers valid in `regions` (ISO 3166 codes, the first being the shop's own)."""

    type = "PHONE"

    def __init__(self, regions: Sequence[str]) -> None:
        unknown = [r for r in regions if r not in phonenumbers.SUPPORTED_REGIONS]
        if unknown or not regions:
            raise ValueError(f"unknown phone regions {unknown}; need at least one ISO 3166 code")
        self._regions = tuple(regions)
        # Parsing costs ~60 µs per region, so only regions whose national format fits are tried.
        self._national = {r: self._national_format(r) for r in regions}
        # "+ (", "(" or a digit opens a number. The first character is read by a class and the
        # look-behind follows it, so `re` skips ahead to those characters instead of trying the
        # pattern at every position (the same matches as a leading look-behind, in ~55% of the time).
        self._candidate = re.compile(
            r"[+(\d](?<![\w+#/$€£¥@.-][+(\d])(?<!\d,[+(\d])"  # a comma only after a digit: "1,234"
            r"(?:(?<=\+) ?\(?\d|(?<=\()\d|(?<=\d))[\d \u00a0().\-/]{4,24}\d"
            r"(?:\s*(?:x|ext\.?|extension)\s*\d{1,6})?(?!\w|[.,:]\d)",
            re.IGNORECASE,
        )
        words = load_terms("context_words.yaml")
        self._phone_words = keyword_pattern(words["phone"])
        self._other_words = keyword_pattern(words["not_phone"])
        # A label after the number says it too: "416 60 039 office", "07700 063 966-Fax".
        self._label_after = re.compile(r"[ \t]*-?[ \t]*(?:office|fax|mobile|home|work|cell|tel)(?!\w)", re.IGNORECASE)

    def find(self, text: str) -> list[Span]:
        spans = []
        for match in self._candidate.finditer(text):
            # In "(555-0132 after 6pm)" the opening parenthesis belongs to the prose, not the number.
            start = match.start() + (match[0].startswith("(") and ")" not in match[0])
            if self._is_phone(text, start, text[start : match.end()]):
                spans.append(Span(self.type, start, match.end()))
        return spans

    @staticmethod
    def _national_format(region: str) -> tuple[str, frozenset[int]]:
        metadata = phonenumbers.PhoneMetadata.metadata_for_region(region)
        description = metadata.general_desc if metadata else None
        lengths = description.possible_length if description else ()
        return (metadata.national_prefix or "") if metadata else "", frozenset(lengths or ())

    def _fitting_regions(self, number: str) -> list[str]:
        """Regions where `number` has a national number's length, after the trunk prefix if any.

        Where the trunk prefix is "0" (most of Europe, Australia), national numbers are written with it.
        """
        digits = "".join(c for c in number if c.isdigit())
        fitting = []
        for region, (prefix, lengths) in self._national.items():
            if prefix and digits.startswith(prefix):
                fits = len(digits) - len(prefix) in lengths
            else:
                fits = prefix != "0" and len(digits) in lengths
            if fits:
                fitting.append(region)
        return fitting

    def _is_phone(self, text: str, start: int, raw: str) -> bool:
        number = _EXTENSION.sub("", raw)
        digits = sum(c.isdigit() for c in number)
        end = start + len(raw)
        if not 7 <= digits <= 15 or _DATE.match(number) or _IPV4.fullmatch(number) or _CURRENCY.match(text, end):
            return False
        if _CURRENCY.search(text, max(0, start - 4), start):
            return False
        said_phone = last_mention(self._phone_words, text, start, 40)
        if last_mention(self._other_words, text, start, 20, same_clause=True) > said_phone:
            return False
        context = said_phone >= 0 or self._label_after.match(text, end) is not None
        if number.isdigit() and not context:
            return False  # a bare digit run is an id or an amount unless someone says it is a phone
        if number.startswith("00"):
            number = "+" + number[2:]  # the international call prefix of most of the world: "0043 1 …"
        if number.startswith("+"):
            number = _TRUNK_PREFIX.sub(" ", number)  # "+44 (0)20 …": the national trunk 0 is not dialled
        if number.startswith("+"):
            regions: Sequence[str | None] = (None,)
        else:  # after "call me on" even a local number without its area code is worth every region
            regions = self._regions if context else self._fitting_regions(number)
        # Written like a phone number, a possible number is enough; otherwise it must be valid. Every
        # valid number is possible, so the cheaper check decides the first case on its own.
        shaped = context or _NANP.fullmatch(number) is not None or _GROUPED.fullmatch(number) is not None
        for region in regions:
            try:
                parsed = phonenumbers.parse(number, region)
            except NumberParseException:
                continue
            if phonenumbers.is_possible_number(parsed) if shaped else phonenumbers.is_valid_number(parsed):
                return True
        return False
