"""The Guardrail's code fast paths: allows that need no model, and cannot carry an instruction.

Plain shop questions (the same rule the Judge uses), a message that is nothing but our order
ids (a customer answering "which order?"), a bare yes or no (answering "shall I?"), a reaction
without words (👍, :), a zip code) or a postcode with its label ("PLZ: 10115"); a message of
nothing but contact details is the scope's (`guards/guardrail/contact.py`). Anything
else, an order id with words around it in any language included, is for the model: an id must
never carry an instruction past the Guardrail.
"""

from __future__ import annotations

import re

from guards.judge.decoders import variants
from guards.judge.rules import FastPath, wordless_verdict
from guards.schema import Verdict
from pipeline.core.ids import WRITTEN_PATTERN
from pipeline.core.replies import reply_kind

ORDER_ID_RULE = "fast.names_an_order"
REPLY_RULE = "fast.yes_or_no"
#: Only order ids, separated by punctuation or spaces: no room for an instruction.
ONLY_ORDER_IDS = re.compile(rf"^[\s\W_]*(?:{WRITTEN_PATTERN}[\s\W_]*)+$", re.IGNORECASE)


def fast_verdict(text: str, fast_path: FastPath) -> Verdict | None:
    """The fast paths' allow, or None when the model must decide."""
    if (shop := fast_path.verdict(variants(text))) is not None:
        return shop
    if reply_kind(text) is not None:
        return Verdict(verdict="allow", reason="Allowed: the message is a bare yes or no.", rules=[REPLY_RULE],
                       tier="fast_path")
    if (wordless := wordless_verdict(text)) is not None:
        return wordless
    if ONLY_ORDER_IDS.match(text):
        return Verdict(verdict="allow", reason="Allowed: the message names one of our orders.",
                       rules=[ORDER_ID_RULE], tier="fast_path")
    return None
