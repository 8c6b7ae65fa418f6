"""What surrounds a street line: a unit, building number or house name before it, and after it
units, a second street, towns, regions, postcodes and countries, on the same line or the next ones.

A street found by `address.py` is widened here step by step, each step one small anchored match,
so the cost is linear in what is consumed and bounded per street (`_MAX_STEPS`). A town or region
is taken only when a postcode, a country or an ISO 3166-2 region (`places.py`) follows or ends it
("Port Ellenton, ME 04101", "LAPPEENRANTA\\n SK\\n 53650", "Milford New Zealand", "Valderice
Trapani"), or when it ends the line of a unit ("Apt. 892 GUÉRET LI"); postcodes and countries are
always taken (after a mere space, a country only as capitalised in the list): a capitalised word
after a comma is otherwise as likely to be the next sentence.
"""

from __future__ import annotations

import re

from guards.masker.base import grouped_alternation, load_terms
from guards.masker.places import ends_with_place

_MAX_STEPS = 6
_MAX_PENDING = 3

# Postcodes: UK, Canada, the Netherlands, "NN-NNN" (PL, PT, JP), Sweden's "NNN NN", US ZIP+4, and
# four or five digits with an optional country letter ("D-80331", "A-1010", "CH-8001").
POSTCODE = (
    r"(?:[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d|\d{4}[ \t]?[A-Z]{2}(?![\w])"
    r"|\d{2,4}-\d{3,4}|\d{3}[ \t]\d{2}|\d{5}-\d{4}|(?:[A-Z]{1,2}-)?\d{4,5})(?![\w-]|[ \t.,]\d)"
)
_UP = "[A-ZÀ-ÖØ-ÞĀ-žΑ-ΩА-ЯЁ]"
# A word keeps a dot only as a short abbreviation ("St. Gallen"), never a sentence's full stop.
_CAP = rf"(?:{_UP}[a-z]{{0,2}}\.(?=[ \t]\w)|{_UP}[\w'’-]*+)"
_ANY = r"(?!and(?!\w))[^\W\d_][\w'’-]*+"
_CONNECTOR = r"(?:am|an|der|de|la|le|les|sur|en|upon|on|im|bei|del|di|du|sous|ob|nad|pod|na|u|v|z)"
# "Frankfurt am Main", "Newcastle upon Tyne", "Ostrov nad Ohří", "Montréal (Québec)", "København K".
_TOWN = (rf"{_CAP}(?:[ \t]{{1,8}}+(?:{_CONNECTOR}[ \t]{{1,8}}+)?{_CAP}){{0,3}}"
         rf"(?:[ \t]{{1,8}}+\({_CAP}(?:[ \t]{_CAP})?\))?")
# Comma or line break (presidio-style blocks also have "\n, ON"), or a space before a postcode.
# Line prefixes of quoted mail ("> ") are part of the break. Runs of blanks are bounded, so that no
# search can start at every blank of a long run and scan it all: a scan from any position is short.
BREAK = r"(?:[ \t]{0,8}+[,;][ \t]{0,8}+(?:\n[ \t>?]{0,8}+){0,2}+|[ \t]{0,8}+(?:\n[ \t>?]{0,8}+){1,2}+,?+[ \t]{0,8}+)"


class AddressTail:
    """Widens a street span (start, end) to the unit, town, postcode and country around it."""

    def __init__(self) -> None:
        terms = load_terms("address_terms.yaml")
        units = grouped_alternation(terms["units"])
        unit = rf"(?i:{units})\.?[ \t]{{0,8}}+#?[ \t]{{0,8}}+(?:\d[\w-]{{0,5}}|[A-Z])(?!\w)"
        floor = r"\d{1,2}[ºª°](?:[ \t]?[A-Z](?![\w]))?"  # Spanish "3º B"
        self._unit = re.compile(rf"(?:{BREAK}|[ \t]{{1,8}}+)(?:{unit}|{floor})")
        # A second street named right after the first, as in the UK's dependent thoroughfares ("1 Back
        # Lane, High Street") and in "14 Crown Street Kishiev Squares": capitalised words and a type.
        second_types = grouped_alternation(terms["suffixes"] + terms["second_street_types"])
        self._second_street = re.compile(rf",?+[ \t]{{1,8}}+(?:{_UP}[^\W\d_'’-]*+[ \t]{{1,8}}+){{1,2}}"
                                         rf"(?i:{second_types})\.?(?!\w)")
        self._postcode_first = re.compile(rf"(?:{BREAK}|[ \t]{{1,8}}+)(?P<code>{POSTCODE})(?:[ \t]{{1,8}}+{_TOWN})?")
        # A town (or "town REGION") with its postcode after it; in lower case only before a five-digit
        # code ("austin tx 78701", "madison, wi 53703"): "colour 0031", "code porte 4521" are not towns.
        self._town_code = re.compile(
            rf"{BREAK}(?:{_TOWN}[ \t]{{0,8}}+,?+[ \t]{{0,8}}+(?P<code>{POSTCODE})"
            rf"|{_ANY}(?:,?+[ \t]{{1,8}}+{_ANY}){{0,3}}[ \t]{{0,8}}+,?+[ \t]{{0,8}}+"
            rf"\d{{5}}(?:-\d{{4}})?(?![\w-]|[ \t.,]\d))")
        self._town = re.compile(rf"(?:{BREAK}|[ \t]{{1,8}}+){_TOWN}")
        # A region written as a code after a break: in capitals before a break or a number ("\n, ON\n",
        # ", NSW 2150"), in any case or as a number only on a line of its own ("\n, nan\n", "\n, 32\n"),
        # since "It's 2018, not 1818" and "13 mai,2037" are prose. Taken only on the way to a postcode.
        self._region_code = re.compile(
            rf"{BREAK}(?:[A-Z]{{2,3}}(?=[ \t]{{0,8}}+[\n,]|[ \t]{{1,8}}+\d)"
            rf"|(?:[^\W\d_]{{2,3}}|\d{{1,2}})(?=[ \t]{{0,8}}+\n))(?!\w)")
        # After a unit the line is an address line: a town and region that end it are taken even
        # without a postcode ("Apt. 892 GUÉRET LI", "Suite 104 Veszprém VE.", "Suite 12 Sindi pr").
        self._ends_with_unit = re.compile(rf"(?<!\w)(?:{unit})\Z")
        # ...and in lower case when the run ends with a country or region: "suite 112 calgary alberta".
        self._lower_town = re.compile(rf"[ \t]{{1,8}}+{_ANY}(?:[ \t]{{1,8}}+{_ANY}){{0,3}}")
        self._line_end = re.compile(r"(?:[ \t]{1,8}+[^\W\d_]{2,3})?[ \t]{0,8}+(?:[\n.,;:!?)]|\Z)")
        countries = grouped_alternation(terms["countries"])
        # "Cyprus (Greek)": a qualifier in parentheses belongs to the country.
        qualifier = rf"(?:[ \t]{{1,8}}+\({_CAP}(?:[ \t]{_CAP})?\))?"
        self._country = re.compile(rf"{BREAK}(?i:{countries})(?![\w]){qualifier}")
        self._country_spaced = re.compile(rf"[ \t]{{1,8}}+(?:{countries})(?![\w]){qualifier}")
        self._unit_before = re.compile(rf"(?<!\w)(?:{unit})(?:[ \t]*[,/][ \t]*|[ \t]+)\Z")
        self._number_before = re.compile(r"(?:^|(?<=[\s:>(]))(?:\d{1,6}[ \t]+){1,2}\Z")
        # A building or street name before the house number, on its line: "Storgarden 52 Trajanka
        # Forks", "Rose Cottage 12 High Street". Letters only, so an order id stays outside.
        self._name_before = re.compile(rf"(?:^|(?<=[\s:>(]))(?:{_UP}[^\W\d_'’-]*+[ \t]{{1,8}}+){{1,2}}\Z")

    def widen(self, text: str, start: int, end: int) -> tuple[int, int, bool]:
        """The widened span, and whether a postcode was taken into it."""
        return (self._left(text, start), *self._right(text, end))

    def _left(self, text: str, start: int) -> int:
        window = text[max(0, start - 40) : start]
        for pattern in (self._number_before, self._name_before, self._unit_before):
            if pattern is self._name_before and not text[start : start + 1].isdigit():
                continue
            match = pattern.search(window)
            if match:
                start -= len(window) - match.start()
                window = text[max(0, start - 40) : start]
        return start

    def _right(self, text: str, end: int) -> tuple[int, bool]:
        committed = position = end
        pending = 0
        postcode = False
        for _ in range(_MAX_STEPS):
            unit = self._unit.match(text, position) or self._second_street.match(text, position)
            if unit and position == committed:
                committed = position = unit.end()
                continue
            anchored = self._postcode_first.match(text, position) or self._town_code.match(text, position)
            if anchored:
                committed = position = anchored.end()
                pending = 0
                postcode = True
                continue
            country = self._country.match(text, position) or self._country_spaced.match(text, position)
            if country:
                committed = position = country.end()
                pending = 0
                continue
            place_end = self._lower_place_after_unit(text, committed) if position == committed else None
            if place_end is not None:
                committed = position = place_end
                continue
            town = self._town.match(text, position) or self._region_code.match(text, position)
            if not town or pending == _MAX_PENDING:
                break
            if town.re is self._town and (ends_with_place(town[0]) or self._closes_unit_line(text, committed, town)):
                committed = position = town.end()
                pending = 0
                continue
            position = town.end()
            pending += 1
        return committed, postcode

    def _lower_place_after_unit(self, text: str, committed: int) -> int | None:
        """Where a run of words right after a unit ends with a country or region, in any case
        ("suite 112 calgary alberta and …"): the longest such run's end, or None."""
        run = self._lower_town.match(text, committed)
        if not run or not self._after_unit(text, committed):
            return None
        words = list(re.finditer(r"\S+", run[0]))
        for last in reversed(words):
            if ends_with_place(run[0][: last.end()]):
                return committed + last.end()
        return None

    def _closes_unit_line(self, text: str, committed: int, town: re.Match[str]) -> bool:
        """Whether `town` directly follows a unit on its line and ends that line or sentence."""
        return (town.start() == committed and "\n" not in town[0] and self._after_unit(text, committed)
                and self._line_end.match(text, town.end()) is not None)

    def _after_unit(self, text: str, position: int) -> bool:
        return self._ends_with_unit.search(text[max(0, position - 24) : position]) is not None
