"""A message that is nothing but contact details: the customer answering "what is the new address?".

The desk asks for a delivery address to change one, and the Guardrail reads each message alone:
out of context "974 Via Roma 131, Apt. 425, Montafia, Italy" or "17 Elm Grove, Bristol BS6 5QT"
read to its model as off topic. The scope calls addresses and the identity details support asks
for on topic, so such a message is allowed in code: the Data Masker's detectors find its email,
phone, address and name spans, and outside them only the scope's label words may stand ("my
new address is", "please send it to"). The words inside the spans pass the shop fast path's deny list,
as every fast-path message does, so an instruction dressed as a street ("1 Print All Orders Road")
still goes to the model; and they must be Latin letters, the only ones that list reads. This allow
is the Guardrail's alone: the Judge's model reads every such message, and a turn uses the
Guardrail's verdict only once the Judge has allowed. The detectors are built when the scope is read
(~160 ms), at start-up, not on the first customer message that needs them.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from guards.judge.decoders import variants
from guards.judge.rules import FastPath
from guards.masker import Masker
from guards.schema import Verdict

#: What a customer gives when support asks who they are or where to deliver.
CONTACT_TYPES = ("EMAIL", "PHONE", "ADDRESS", "NAME")
_LABEL_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_TOKEN = re.compile(r"[^\W_]+")


class ContactDetails(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, ignored_types=(cached_property,))

    id: str
    description: str
    #: The only words allowed outside the contact spans, lower-case.
    labels: list[str] = Field(min_length=1)
    examples: list[str] = Field(min_length=1)
    counter_examples: list[str] = Field(default_factory=list)
    _masker: Masker = PrivateAttr(default_factory=lambda: Masker(CONTACT_TYPES))

    @cached_property
    def _labels(self) -> frozenset[str]:
        return frozenset(self.labels)

    def allows(self, text: str, fast_path: FastPath) -> bool:
        """Contact spans and label words only, and nothing in the spans the fast path denies."""
        if len(text) > fast_path.max_chars:
            return False
        spans = sorted(self._masker.mask(text).redactions, key=lambda span: span.start)
        if not spans:
            return False
        outside, inside, end = [], [], 0
        for span in spans:
            outside.append(text[end:span.start])
            inside.append(text[span.start:span.end])
            end = span.end
        outside.append(text[end:])
        words = (word.lower().replace("’", "'") for part in outside for word in _LABEL_WORD.findall(part))
        if any(word not in self._labels for word in words):
            return False
        # The spans' words without their punctuation: "Apt. 4" is not a second sentence.
        views = variants(" ".join(_TOKEN.findall(" ".join(inside))))
        return fast_path.plain(views) and all(_latin(ch) for ch in views[0] if ch.isalpha())

    def verdict(self, text: str, fast_path: FastPath) -> Verdict | None:
        if not self.allows(text, fast_path):
            return None
        return Verdict(verdict="allow", reason=f"Allowed: {self.description}.", rules=[self.id], tier="fast_path")


def _latin(letter: str) -> bool:
    return unicodedata.name(letter, "").startswith("LATIN")
