"""The exact words that confirm or decline: one list for the Guardrail and for pending actions.

A message that is only one of these words carries no instruction, so the Guardrail lets it
through without its model; whether it confirms anything is decided by `pipeline/confirm.py`.
"""

from __future__ import annotations

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
