"""Replies that carry no instruction: the exact words that confirm or decline, and reactions.

A message that is only one of the confirmation words carries no instruction, so the Guardrail lets
it through without its model; whether it confirms anything is decided by `pipeline/confirm.py`.
A reaction (👍, :), ?, 94110) has no word at all, and a labelled postcode ("ZIP: 1098", "PLZ 10115")
has only its field's name: both guards allow either without their models, which read a message
with no words as nothing but symbols, and a bare "LABEL: value" as an attack's fake header.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

#: Exact replies (after case-folding, trimming punctuation and spaces) that confirm or decline.
#: Only these, and only while a valid pending action for this customer exists: anything else the
#: customer writes discards the pending action and is answered as a new message.
YES = frozenset({"yes", "y", "yeah", "yep", "yes please", "confirm", "ok", "okay", "sure",
                 "ja", "ja bitte", "jawohl", "sí", "si", "oui", "sì", "sim", "da"})
NO = frozenset({"no", "n", "nope", "no thanks", "cancel", "nein", "non", "não", "nao", "niet"})

Reply = Literal["yes", "no"]


def reply_kind(text: str) -> Reply | None:
    """"yes" or "no" when the whole message is one of the exact confirmation words, else None."""
    folded = " ".join(unicodedata.normalize("NFC", text).casefold().strip(" \t\n.!¡?¿,;:").split())
    return "yes" if folded in YES else "no" if folded in NO else None


#: The rule id and reason both guards give a reaction they allow.
REACTION_RULE = "fast.reaction"
REACTION_REASON = "Allowed: the message has no words, only a reaction."
#: A reaction is at most this many characters, spaces aside. Longer text without letters can still
#: spell words (Morse, character codes), so it stays with the models.
REACTION_MAX_CHARS = 16
#: Symbols that stand for letters or bytes: regional indicators, enclosed and squared letters,
#: braille, invisible tag letters, and the supplementary variation selectors (one per byte, hidden
#: behind an emoji). The sanitizer refuses tag letters; the Judge does not rely on it.
_LETTER_SYMBOLS = ((0x1F1E6, 0x1F1FF), (0x2460, 0x24FF), (0x1F100, 0x1F1FF), (0x2800, 0x28FF),
                   (0xE0000, 0xE007F), (0xE0100, 0xE01EF))


def _letter_like(char: str) -> bool:
    code = ord(char)
    return char.isalpha() or any(lo <= code <= hi for lo, hi in _LETTER_SYMBOLS)


def is_reaction(text: str) -> bool:
    """A short message without a letter in any script, or a symbol standing for one: emoji,
    punctuation, digits (a zip code, a rating)."""
    visible = "".join(unicodedata.normalize("NFKC", text).split())
    return 0 < len(visible) <= REACTION_MAX_CHARS and not any(_letter_like(char) for char in visible)


#: The rule id and reason both guards give a postcode with only its field's name before it.
POSTCODE_RULE = "fast.postcode"
POSTCODE_REASON = "Allowed: the message is a postcode and its label."
#: A postcode field's name in the languages the desk serves most, case-folded.
_POSTCODE_LABELS = ("zip", "zip code", "zipcode", "postcode", "post code", "postal code", "plz", "postleitzahl",
                    "cap", "code postal", "cp", "código postal", "codigo postal", "postnummer", "postinumero",
                    "kod pocztowy", "pin code", "pincode", "irányítószám", "psč", "почтовый индекс", "индекс")
#: The label, an optional colon, then one to three parts of a postcode: each part with a digit, or
#: at most two letters ("SW1A 1AA", "1098 XH", "M5H 3T4", "00-950"), ten characters at most.
_POSTCODE_PART = r"(?:[a-z]{0,4}\d[a-z\d]*|[a-z]{1,2})"
_LABELLED_POSTCODE = re.compile(
    "(?:" + "|".join(sorted(map(re.escape, _POSTCODE_LABELS), key=len, reverse=True)) + ")"
    + rf"\s*[:#.]?\s*(?=[\w -]{{1,10}}$){_POSTCODE_PART}(?:[ -]{_POSTCODE_PART}){{0,2}}")


def wordless_reply(text: str) -> tuple[str, str] | None:
    """(rule, reason) when the message carries no instruction by its shape alone: a reaction, or a
    labelled postcode; else None."""
    if is_reaction(text):
        return REACTION_RULE, REACTION_REASON
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split()).strip(" .!")
    if len(folded) <= 40 and _LABELLED_POSTCODE.fullmatch(folded) and any(ch.isdigit() for ch in folded):
        return POSTCODE_RULE, POSTCODE_REASON
    return None
