"""A change of subject the customer announces: what follows it is read on its own.

"My order came, great. By the way, do you know a good dentist near me?" reads to a model of the
whole message as a line about an order, because the order is most of it; the customer has said
that the rest is another subject. The offline Guardrail model scores the whole message and what
follows the last such phrase, and the message is as far off topic as the further of the two. A
retail question after "by the way" stays a retail question ("btw can you also check ORD-10043?").
A hosted model reads the whole message and needs no help, so only the offline model uses this.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

#: A part shorter than this many words is not a question of its own ("by the way, thanks").
MIN_WORDS = 3
#: ... unless it is in a script without spaces between words, then this many characters.
MIN_CHARS_UNSPACED = 6


class SubjectChanges(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str
    #: Phrases that announce another subject, lower-case regex fragments joined as alternatives.
    phrases: list[str] = Field(min_length=1)
    #: (message, the part read on its own) pairs; the part is None when there is none.
    examples: list[tuple[str, str | None]] = Field(min_length=1)

    _phrase: re.Pattern[str] = PrivateAttr()

    @model_validator(mode="after")
    def _compiles(self) -> SubjectChanges:
        # Compiled where the scope is read, as rules are: a bad phrase fails at load, not on a message.
        # Plain alternatives of words and spaces, no nesting, so matching stays linear: 57 ms of CPU
        # on 64 KiB of spaces, the slowest text tried, so under 2 ms for a 2,000-character message.
        try:
            self._phrase = re.compile("(?:" + "|".join(self.phrases) + r")[\s,:;.!?…\-，、：；。！？]*",
                                      re.IGNORECASE)
        except re.error as exc:
            raise ValueError(f"subject_changes: not a pattern ({exc})") from None
        return self

    def after(self, text: str) -> str | None:
        """What follows the last announced change of subject, if it is long enough to be a question."""
        changes = list(self._phrase.finditer(text))
        if not changes:
            return None
        rest = text[changes[-1].end():].strip()
        spaced = len(rest.split()) >= MIN_WORDS
        return rest if spaced or (len(rest) >= MIN_CHARS_UNSPACED and not rest.isascii()) else None
