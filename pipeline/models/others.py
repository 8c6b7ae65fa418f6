"""Whether a customer's message names someone other than the customer.

The offline agent's tools read only the signed-in account (the email is bound in SQL), so "what did
my neighbour order?" or "what did Jonas Berg buy?" would be answered with the customer's own orders
as if they were the other person's. When a message names someone else, the answer first says that
it shows only the customer's own orders (`planner.next_step`). Words per language are in
`data/others.yaml`; a false positive costs a customer one true sentence, so the test is broad.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from pipeline.models.exemplars import load_data_file

#: Another address, or a title before a name ("Mrs Patel", "Herr Schulz").
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_TITLED = re.compile(r"\b(?:mr|mrs|ms|miss|dr|herr|frau|señor|señora|sr|sra|monsieur|madame|mme|signor|signora|"
                     r"sig|sig\.ra|pan|pani)\.?\s+[A-ZÀ-ÖØ-ÞĀ-Ž]", re.IGNORECASE)
#: Two capitalised words inside a sentence, as a person's name is written ("what did Jonas Berg buy").
_NAME = re.compile(r"(?<=[a-zà-ÿ,]\s)[A-ZÀ-ÖØ-Þ][a-zà-ÿ]+\s+[A-ZÀ-ÖØ-Þ][a-zà-ÿ]+")


@cache
def _patterns() -> tuple[re.Pattern[str], tuple[str, ...]]:
    data = load_data_file("others.yaml")
    words = sorted({w.casefold() for ws in data["words"].values() for w in ws}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b"), tuple(data["scripts_without_spaces"])


def names_someone_else(message: str) -> bool:
    text = unicodedata.normalize("NFKC", message)
    words, unspaced = _patterns()
    folded = text.casefold()
    return bool(words.search(folded) or any(w in text for w in unspaced)
                or _EMAIL.search(text) or _TITLED.search(text) or _NAME.search(text))
