"""What an action request names besides the order: items, what an item becomes, a new address,
and whether the customer is only asking about a possibility ("could I return it if…?").

Rules, not a model: they cover English, German, Spanish, French, Italian and Portuguese phrasings
the desk's own cases use (pipeline/models/tests/cases/action_cases.yaml). When a rule finds
nothing the planner asks the customer instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.models.extract import strip_order_refs

#: A question about a possibility, not a request: a modal question with a condition, or an
#: explicit "what if" / "is it possible". "Can I get a refund for order 10042?" stays a request.
_HYPOTHETICAL = re.compile(
    r"(?i)\b(?:could|can|would|may|might)\s+(?:i|we)\b.*\b(?:if|in case|once|when|should)\b"
    r"|\b(?:what (?:happens )?if|hypothetically|is it (?:even )?possible to|would it be possible to"
    r"|am i (?:able|allowed) to)\b"
    r"|\b(?:könnte|kann|darf)\s+ich\b.*\b(?:wenn|falls)\b"
    r"|\b(?:podría|puedo|pourrais|puis|potrei|posso|poderia)\b.*\b(?:si|se|quand|cuando)\b")
#: Words of an item name that say nothing about which item (or that name the request itself).
_NOT_ITEM_WORDS = frozenset({"cancel", "cancelling", "canceling", "return", "returns", "exchange", "order", "over",
                             "with", "from", "pour", "item", "items", "queen"})
#: What follows these is what the customer keeps, not what the request is about.
_KEEPING = re.compile(r"(?i)\b(?:keep|keeping|still want|but not|not the|except|apart from|behalten|behalte|"
                      r"quiero quedarme|me quedo|garder|je garde|tenere)\b")
_WORD = re.compile(r"[^\W\d_]{4,}")
#: What an exchanged item should become: the words after "for"/"into" (or a translation).
_EXCHANGE_VERB = re.compile(r"(?i)\b(?:exchange|swap|switch|umtauschen|tauschen|cambiar|échanger|scambiare|trocar)\b")
_BECOMES = re.compile(r"(?i)\b(?:for|into|gegen|por|contre|con|per|pelo|pela)\s+(?:(?:a|an|the|one|ein|eine|einen|"
                      r"un|una|une|uno|um|uma)\s+)?(.+)$")
_BECOMES_TO = re.compile(r"(?i)\b(?:to|zu|in)\s+(?:(?:a|an|the|ein|eine|einen)\s+)?(.+)$")
#: A verb closing the sentence ("… gegen Größe 44 umtauschen") is not part of the new item.
_TRAILING_VERB = re.compile(r"(?i)\s+(?:umtauschen|tauschen|eintauschen|cambiar|échanger|scambiare|trocar)\W*$")
_ADDRESS_WORD = re.compile(r"(?i)\b(?:address|lieferadresse|adresse|dirección|direccion|indirizzo|endereço)\b")
_ADDRESS_LEAD = re.compile(r"(?i)^.*?(?:\b(?:to|zu|auf|nach|a|à|para|in|is|ist|es|est)\b|:)\s*:?\s*")
_EDGE = " \t\n,;:.!?\"'“”"


def is_hypothetical(text: str) -> bool:
    return _HYPOTHETICAL.search(text) is not None


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def named_items(text: str, names: Sequence[str]) -> list[str]:
    """The order's items (by their listed names) the message mentions by a distinctive word;
    not those it says to keep ("cancel the skillet, I still want the shoes")."""
    said = _words(_KEEPING.split(text, maxsplit=1)[0])
    said |= {w[:-1] for w in said if w.endswith("s")}  # "skillets", "shoes" → "shoe" too
    found = []
    for name in names:
        words = _words(name) - _NOT_ITEM_WORDS
        if words & said or {w[:-1] for w in words if w.endswith("s")} & said:
            found.append(name)
    return found


def new_item_of(text: str) -> str:
    """What the customer wants instead ("… for a size 44" → "size 44"), or "" if they did not say."""
    plain = strip_order_refs(text)
    verb = _EXCHANGE_VERB.search(plain)  # what it becomes is said after the verb, not before
    plain = plain[verb.end():] if verb else plain
    match = _BECOMES.search(plain) or _BECOMES_TO.search(plain)
    return _TRAILING_VERB.sub("", match.group(1)).strip(_EDGE) if match else ""


def new_address_of(text: str) -> str:
    """The new delivery address after "address … to", or "" (an address has a house number)."""
    plain = strip_order_refs(text)
    word = _ADDRESS_WORD.search(plain)
    if word is None:
        return ""
    rest = plain[word.end():]
    lead = _ADDRESS_LEAD.match(rest)
    address = (rest[lead.end():] if lead else rest).strip(_EDGE)
    return address if re.search(r"\d", address) and len(address) >= 8 else ""
