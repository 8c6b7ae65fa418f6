"""Street addresses: a house number and a street name held together by a street-type word.

Four shapes are recognised, each anchored on both a number and a street-type word from
`address_terms.yaml`, since a capitalised name next to a number is otherwise just prose:
  "12 Baker Street, Apt 4"   number, name, suffix (US/UK), optional unit and "City, ST 12345" tail
  "Via Roma 131"             street-type prefix, name, number (Romance and Slavic languages)
  "Östbygatan 14"            street-type fused into the name or following it, number (Germanic, Nordic,
                             Finnish, Hungarian); any name and number when a unit follows ("Kesk 53 Apt 2")
  "PO Box 12", "PSC 1234, Box 5678 APO AE 09012"   postal boxes and US military mail
A crossing ("corner of Elm Street and 5th Avenue") is one span. Parts of one address found by two
shapes (a prefix street and a suffix street sharing a number, a street and its unit) merge.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from guards.masker.address_tail import AddressTail
from guards.masker.base import Span, load_terms

# Upper-case initial in the scripts customers write addresses in (Latin incl. extended, Greek, Cyrillic).
_UP = "[A-ZÀ-ÖØ-ÞĀ-žΑ-ΩА-ЯЁ]"
# Possessive (`*+`): what follows a word is never a word character, "'" or "-", so giving back
# letters could never lead to a match; `re` stops trying at once instead of letter by letter.
_WORD = rf"{_UP}[\w'’-]*+"
_ORDINAL = r"\d{1,3}(?:st|nd|rd|th|e|er|ª|º)"
_CONNECTOR = (r"(?:de|del|della|delle|dei|degli|di|da|do|dos|das|du|des|la|le|les|el|van|von|der|den|ten|of|the|y|e"
              r"|z|u|na)")  # Czech/Slovak/Polish: "Jiřího z Poděbrad", "Kostelec u Prahy"
_NAME_WORD = rf"(?:{_WORD}|{_ORDINAL}|{_CONNECTOR})"
# Inside a street name an abbreviation may keep its dot ("St. James Place", "Mt. Vernon Ave").
_ABBR_NAME_WORD = rf"(?:{_WORD}\.?|{_ORDINAL}|{_CONNECTOR})"
_DIRECTION = r"(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?"
_HOUSE = r"\d{1,6}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?){0,2}"  # "88/3/12": house, stair, door (AT)
# The same, not glued to a word, an id or a decimal. The look-behind sits after the first character
# because `re` only skips quickly through text to a pattern whose first item is a character class.
_HOUSE_ALONE = r"\d(?<![\w.,/-]\d)\d{0,5}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?){0,2}"
_WORD_ALONE = rf"{_UP}(?<!\w{_UP})[\w'’-]*+"
_SP = r"[ \t\u00a0]+"
# A word of a street named after a cue, in any case, but not a pronoun or article ("to my neighbour").
# Only a short word keeps a dot ("St.", "Str."): after "949 Geneva Avenue." the next word is a sentence.
_CUE_WORD = (r"(?!(?:my|our|your|his|her|their|the|a|an|me|us|him|them|it|this|that|number|no|nr|is|was|are"
             r"|be|been|should|will|would|can|could|must|has|have|had|not|now|still|also|then|here|there"
             r"|with|to|of|at|in|on|for|and|from|by)(?!\w))[^\W\d_](?:[\w'’-]{0,3}\.|[\w'’-]*+)")
# A number followed by one of these is a quantity or a duration, not a house number.
_NOT_HOUSE = r"(?![ \t]*(?i:days?|weeks?|months?|hours?|minutes?|items?|pcs|pieces|units|times|kg|lbs?|%|x)(?!\w))"
_US_TAIL = rf"(?:,[ \t]*{_WORD}(?:[ \t]{_WORD}){{0,2}},?[ \t]+[A-Z]{{2}}[ \t]+\d{{5}}(?:-\d{{4}})?(?!\w))"
_UK_TAIL = rf"(?:,[ \t]*{_WORD}(?:[ \t]{_WORD}){{0,2}},?[ \t]+[A-Z]{{1,2}}\d[A-Z\d]?[ \t]?\d[A-Z]{{2}}(?!\w))"
_MILITARY_TAIL = r"(?:\s+(?i:[AFD]PO[ \t]+A[AEP])[ \t]+\d{5}(?!\d))"


def _alternation(words: Iterable[str], *, first_read: bool = False) -> str:
    """Longest first, so "street" is tried before "st". A term listed with a final "." needs it
    ("ul.", "u.": too short to stand alone); any other term of up to four letters may be followed by
    an optional "." (see `_term`).

    Terms are grouped under their first letter ("R(?:ue|oute)|A(?:venue|llée)"): `re` tries the
    branches of an alternation one by one, so a hundred flat branches cost a hundred steps at every
    position tried, and grouped ones a step per letter. Only terms that share a first letter (under
    case folding too) could match at the same place, and their order within a group is kept, so
    the grouped pattern matches exactly what the flat one did. With `first_read`, the first letter
    has already been consumed and is checked by a look-behind ("(?<=R)(?:ue|oute)").
    """
    terms = sorted(set(words), key=len, reverse=True)
    groups: dict[str, list[str]] = {}
    for term in terms:
        groups.setdefault(term[0].casefold(), []).append(term)
    return "|".join(_group(group, first_read) for group in groups.values())


def _term(term: str, skip: int = 0) -> str:
    """`term` without its first `skip` characters. A short term may be an abbreviation and take a
    dot ("Ave.", "Blvd."); after a whole word ("Avenue.") the dot ends the sentence and stays out."""
    if term.endswith(".") or len(term) > 4:
        return re.escape(term[skip:])
    return rf"{re.escape(term[skip:])}\.?"


def _group(terms: list[str], first_read: bool) -> str:
    first = terms[0][0]
    lead = f"(?<={re.escape(first)})" if first_read else re.escape(first)
    if any(term[0] != first for term in terms):
        return "|".join(_group([term], first_read) for term in terms)
    return lead + "(?:" + "|".join(_term(term, 1) for term in terms) + ")"


@functools.cache
def _case_variants(letters: str) -> str:
    """Every character that `re` matches case-insensitively to one of `letters` ("s": "Ssſ").

    Only Latin, Greek and Cyrillic letters are asked about, and no character from U+3000 on matches
    one of those case-insensitively (a test checks every code point), so the scan stops there.
    """
    pattern = re.compile(f"(?i:[{re.escape(letters)}])")
    return "".join(c for c in map(chr, range(0x3000)) if pattern.fullmatch(c))


class AddressDetector:
    type = "ADDRESS"

    def __init__(self) -> None:
        terms = load_terms("address_terms.yaml")
        suffix = rf"(?i:{_alternation(terms['suffixes'])})"
        unit = rf"(?:,?\s*(?i:{_alternation(terms['units'])})[ \t]*#?(?:\d[\w-]{{0,5}}|[A-Z])(?!\w))"
        # A prefix opens with a letter from this class (the look-behind follows it, so `re` skips to
        # those letters), then the rest of the term is matched with that letter checked behind.
        prefix_first = {term[0] for term in terms["prefixes"]}
        prefix_first.update(_case_variants("".join(term[0] for term in terms["prefix_abbreviations"])))
        prefix_lead = f"[{re.escape(''.join(sorted(prefix_first)))}](?<!\\w.)"
        prefix_rest = (rf"(?:{_alternation(terms['prefixes'], first_read=True)}"
                       rf"|(?i:{_alternation(terms['prefix_abbreviations'], first_read=True)}))")
        self._fused_endings = tuple(w.lower() for w in terms["compound_endings"])
        trailing = rf"(?i:{_alternation(terms['trailing_words'])})"
        plain_suffix = rf"(?i:{_alternation(terms['plain_suffixes'])})"
        house_after = rf",?{_SP}{_HOUSE}(?!\w){_NOT_HOUSE}"
        self._patterns = [
            re.compile(
                rf"{_HOUSE_ALONE}{_NOT_HOUSE},?{_SP}(?:{_DIRECTION}{_SP})?(?:{_WORD}\.?|{_ORDINAL})"
                # Two street types in a row are one name and its type: "224 Forrest Hill Road" (the
                # second capitalised: "on 1668 Glyn St street" is prose about the street).
                rf"(?:{_SP}{_ABBR_NAME_WORD}){{0,3}}?{_SP}{suffix}(?!\w)(?:{_SP}(?={_UP}){suffix}(?!\w))?"
                rf"(?:{_SP}{_DIRECTION}(?!\w))?"
                rf"{unit}?(?:{_US_TAIL}|{_UK_TAIL})?"
            ),
            # Customers often type in lower case; one plain word before an unambiguous suffix is enough.
            re.compile(rf"{_HOUSE_ALONE}{_NOT_HOUSE}{_SP}[^\W\d_]{{2,}}+{_SP}{plain_suffix}(?!\w){unit}?"),
            # Up to five words of name: "Rua Vinte e Cinco de Setembro 1257".
            re.compile(rf"{prefix_lead}{prefix_rest}{_SP}(?:{_NAME_WORD}{_SP}){{0,4}}?(?:{_WORD}|{_ORDINAL}){house_after}{unit}?"),
            re.compile(
                rf"{_HOUSE_ALONE}(?:{_SP}(?i:bis|ter|quater))?,?{_SP}(?i:{_alternation(terms['prefixes'])}){_SP}"
                rf"(?:{_NAME_WORD}{_SP}){{0,3}}{_WORD}(?!\w){unit}?"
            ),
            # The word between may be in lower case: "Árpád fejedelem útja 3.", "Belgrád rkp. 18.".
            re.compile(rf"{_WORD_ALONE}(?:{_SP}[^\W\d_][\w'’-]*+)?{_SP}{trailing}{house_after}\.?{unit}?"),
            # Without a street-type word, a name and number count only when a unit follows: "Kesk 53 Suite 4".
            re.compile(rf"{_WORD_ALONE}(?:{_SP}{_NAME_WORD}){{0,2}}{house_after}\.?{unit}"),
            # A unit alone is part of an address too: "the courier forgot Suite 212".
            re.compile(rf"(?:{'|'.join(terms['lone_units'])})\.?[ \t]*#?\d{{1,5}}[A-Za-z]?(?!\w)"),
        ]
        # A crossing names a place as exactly as a house number does, so "corner of Dalbraut 99 and
        # Frederikke Coves" is one span, the words "corner of" with it. The second street is one word
        # and up to two more, capitalised or a street type in any case ("and minik courts").
        self._corner = re.compile(rf"[Cc]orner{_SP}of{_SP}[^\n,;!?]{{2,60}}?{_SP}and{_SP}"
                                  rf"(?:{_ORDINAL}|[^\W\d_][\w'’-]*+)(?:{_SP}(?:{_WORD}|{suffix}(?!\w))){{0,2}}")
        # After "lives at", "Adresse:", "ship to": a name and a number, in any case, are a street.
        # Led by a class of the cues' first letters with the look-behind after it, like the prefixes:
        # `re` then skips to those letters instead of trying every cue at every word (~5x faster).
        cue_lead = f"[{re.escape(''.join(sorted(_case_variants(''.join(c[0] for c in terms['cues'])))))}](?<!\\w.)"
        self._after_cue = re.compile(
            rf"{cue_lead}(?i:{_alternation(terms['cues'], first_read=True)})(?!\w)[ \t:]*+(?P<street>(?:"
            rf"(?:\d{{1,6}}[ \t]+)?{_CUE_WORD}(?:[ \t]+{_CUE_WORD}){{0,3}}?[ \t]+{_HOUSE}(?!\w){_NOT_HOUSE}"
            rf"|(?:\d{{1,6}}[ \t]+)?{_HOUSE}(?!\w){_NOT_HOUSE}[ \t]+{_CUE_WORD}(?:[ \t]+{_CUE_WORD}){{1,3}}))",
            re.IGNORECASE)
        # ...or when a postcode follows, on its line or below: "Lindenring 7/2, 83022 Rosenheim".
        self._name_number = re.compile(rf"{_WORD_ALONE}(?:{_SP}{_NAME_WORD}){{0,2}}{_SP}{_HOUSE}(?!\w){_NOT_HOUSE}")
        self._tail = AddressTail()
        # Opens with a look-behind, which `re` tries at every character; see `_may_hold_postal`.
        self._postal = re.compile(
            rf"(?<!\w)(?:(?i:p\.?[ \t]?o\.?|post[ \t]office)[ \t]?(?i:box){_SP}\d{{1,6}}"
            rf"|(?:PSC|CMR|Unit){_SP}\d{{1,5}},?{_SP}Box{_SP}\d{{1,5}}{_MILITARY_TAIL}?"
            rf"|(?:USS|USNS|USNV|USCGC){_SP}{_WORD}(?:{_SP}{_WORD})?{_MILITARY_TAIL}"
            # In lower case only with the APO/FPO/DPO line that no other text has.
            rf"|(?i:psc|cmr|unit){_SP}\d{{1,5}},?{_SP}(?i:box){_SP}\d{{1,5}}{_MILITARY_TAIL}"
            rf"|(?i:uss|usns|usnv|uscgc){_SP}[^\W\d_]+(?:{_SP}[^\W\d_]+)?{_MILITARY_TAIL})(?!\w)"
        )
        # Fused street types are checked on the word, not by the regex: a long alternation tried at
        # every letter of every capitalised word costs more than the rest of the masker together.
        # Lower case: "rue du centre 320", "avenida praia 1 suite 463", the number ending its clause
        # or followed by a unit ("the strada cushion 2 pack" is a product). Led by a class of the
        # terms' first letters with the look-behind after it, so `re` skips to those letters.
        lower = terms["prefixes_any_case"]
        lower_lead = f"[{re.escape(''.join(sorted(_case_variants(''.join(t[0] for t in lower)))))}](?<!\\w.)"
        self._lower_prefix = re.compile(
            rf"{lower_lead}(?i:{_alternation(lower, first_read=True)}){_SP}(?:{_CUE_WORD}{_SP}){{0,3}}?{_CUE_WORD}"
            rf"{house_after}(?:{unit}|(?=[ \t]*+(?:[,;\n.!?)]|\Z)))")
        self._fused = re.compile(rf"(?P<street>{_UP}(?<!\w{_UP})[\w'’-]{{3,}}+\.?){house_after}\.?{unit}?")

    def find(self, text: str) -> list[Span]:
        patterns = [*self._patterns, self._lower_prefix]
        if _may_hold_postal(text):
            patterns.append(self._postal)
        found = [m.span() for pattern in patterns for m in pattern.finditer(text)]
        for match in self._fused.finditer(text):
            street = match["street"].lower()
            if street.endswith(self._fused_endings) or street.rstrip(".").endswith(self._fused_endings):
                found.append(match.span())
        found += [corner.span() for corner in self._corner.finditer(text)]
        found += [match.span("street") for match in self._after_cue.finditer(text)]
        spans = []
        for start, end in found:
            start, end, _ = self._tail.widen(text, start, end)
            spans.append(Span(self.type, start, end))
        for match in self._name_number.finditer(text):
            start, end, postcode = self._tail.widen(text, *match.span())
            if postcode:
                spans.append(Span(self.type, start, end))
        return _merged(spans)


def _merged(spans: list[Span]) -> list[Span]:
    """Overlapping parts of one address as one span: "Λεωφόρος Συγγρού 119" (a street-type prefix)
    and "119 Nino Point\n Apt. 658…" (a suffix) share their number; "…rue de la Hulotais Apt" and
    "Apt. 087 SAINT-PRIEST" their unit word. Resolving them as rivals would drop one part whole."""
    merged: list[Span] = []
    for span in sorted(spans):
        if merged and span.start < merged[-1].end:
            merged[-1] = merged[-1]._replace(end=max(merged[-1].end, span.end))
        else:
            merged.append(span)
    return merged


def _may_hold_postal(text: str) -> bool:
    """Every postal-box or ship address holds "box" in some case, or starts with "US", or (in lower
    case) ends in an "apo/fpo/dpo" line.

    A necessary condition checked by plain substring search (~2 µs a KB), so the postal pattern
    (~50 µs a KB) runs only on the rare text that could match it.
    """
    low = text.lower()
    return "US" in text or "box" in low or "po " in low or "po\t" in low
