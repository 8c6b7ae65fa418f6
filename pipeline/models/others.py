"""Whether a customer's message names someone other than the customer.

The offline agent's tools read only the signed-in account (the email is bound in SQL), so "what did
my neighbour order?" or "what did Jonas Berg buy?" would be answered with the customer's own orders
as if they were the other person's. When a message names someone else, the answer first says that
it shows only the customer's own orders (`planner.next_step`). Words per language are in
`data/others.yaml`; an e-mail address and a titled name are the Data Masker's detectors. A false
positive costs a customer one true sentence, so the test is broad.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from guards.masker.base import keyword_pattern
from guards.masker.names import NameDetector
from guards.masker.network import EmailDetector
from pipeline.models.exemplars import load_data_file

#: Two capitalised words inside a sentence, as a person's name is written ("what did Jonas Berg
#: buy"). The masker does not count these as names (products and places look the same); here a
#: false positive only adds a true sentence.
_NAME = re.compile(r"(?<=[a-zà-ÿ,]\s)[A-ZÀ-ÖØ-Þ][a-zà-ÿ]+\s+[A-ZÀ-ÖØ-Þ][a-zà-ÿ]+")


@dataclass(frozen=True)
class _Detectors:
    words: re.Pattern[str]
    unspaced: tuple[str, ...]
    emails: EmailDetector
    names: NameDetector


@cache
def _detectors() -> _Detectors:
    data = load_data_file("others.yaml")
    return _Detectors(keyword_pattern(w for ws in data["words"].values() for w in ws),
                      tuple(data["scripts_without_spaces"]), EmailDetector(), NameDetector())


def names_someone_else(message: str) -> bool:
    text = unicodedata.normalize("NFKC", message)
    found = _detectors()
    return bool(found.words.search(text) or any(w in text for w in found.unspaced)
                or found.emails.find(text) or found.names.titled(text) or _NAME.search(text))
