"""Order ids and free-text details taken out of a customer's message.

Customers write an order as "order 10042", "order number 10042", "#10042", "ord-10042" or
"ORD10042"; the tools want "ORD-10042". A bare number with no order cue is not taken: in a
delivery note it is far more often a house number or postcode than an order.
"""

from __future__ import annotations

import re

from pipeline.core.ids import DIGITS_PATTERN, order_id

_DIGITS = f"({DIGITS_PATTERN})"
_REF = (
    r"(?:"
    r"\bord(?:ers?)?\b[\s:#._-]*(?:(?:number|no|nr|num|id|is|was|ref|reference)\b[\s:#.]*){0,2}"
    r"(?:ord[-_ ]?)?" + _DIGITS
    + r"|\bord[-_]?" + _DIGITS
    + r"|\#\s?(?:ord[-_]?)?" + _DIGITS
    + r")\b"
)
#: A reference and the list that may follow it: "orders 10042, 10043 and #10044".
_REF_LIST = _REF + r"(?:\s*(?:,|&|\band\b|\bor\b)\s*(?:ord[-_ ]?|\#\s?)?" + DIGITS_PATTERN + r"\b)*"
_ORDER_REF = re.compile(r"(?i)" + _REF_LIST)
_ID_DIGITS = re.compile(DIGITS_PATTERN)
_BARE_NUMBER = re.compile(
    r"(?<![\w.,$€£])(" + DIGITS_PATTERN + r")(?![\w.,%]|\s*(?:dollars|euros|pounds|usd|eur|gbp)\b)", re.I)
#: A reference with its lead-in ("for my order 10042"), removed whole from notes.
_ORDER_REF_PHRASE = re.compile(
    r"(?i)(?:\b(?:for|on|of|with|about|regarding|re|from|in)\s+)?(?:(?:my|the|this|that)\s+)?" + _REF_LIST
)
_LATEST = re.compile(r"(?i)\b(latest|last|newest|most\s+recent|recent|current)\b")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")
_EDGE_JUNK = " \t\n,;:.-–—!?"
NOTE_MAX_CHARS = 300


def find_order_ids(text: str, *, bare_numbers: bool = False) -> list[str]:
    """Canonical ids of every order the message names, first mention first, without repeats.

    A list after one reference counts too: "orders 10042, 10043 and #10044". With
    `bare_numbers`, a message with no order cue at all may name orders by number alone ("when
    will 10042 arrive"): right for look-ups, where a wrong number only finds nothing.
    """
    seen: dict[str, None] = {}
    for match in _ORDER_REF.finditer(text):
        for digits in _ID_DIGITS.findall(match.group(0)):
            seen.setdefault(order_id(digits), None)
    if not seen and bare_numbers:
        for digits in _BARE_NUMBER.findall(text):
            seen.setdefault(order_id(digits), None)
    return list(seen)


def mentions_latest(text: str) -> bool:
    """Whether the customer points at their newest order ("my last order", "most recent")."""
    return _LATEST.search(text) is not None


def strip_order_refs(text: str) -> str:
    """The text without its order references and their lead-in ("for my order 10042")."""
    return _SPACE_BEFORE_PUNCT.sub(r"\1", " ".join(_ORDER_REF_PHRASE.sub(" ", text).split()))


def extract_note(text: str) -> str:
    """The customer's own words for a delivery instruction or reason, order reference removed.

    The note is recorded for staff, so it stays the customer's wording, not a paraphrase.
    """
    note = strip_order_refs(text).strip(_EDGE_JUNK)
    if len(note) > NOTE_MAX_CHARS:
        note = note[: NOTE_MAX_CHARS - 1].rstrip() + "…"
    return note
