"""The rules' own words typed with two neighbouring letters swapped: "igonre", "isntructions".

Swapped letters are the commonest slip of a hand on a keyboard, and red-team tools swap letters on
purpose so that a filter reading words sees none. The patterns read one more view of a message in
which each word of five letters or more that is not a word of the patterns, but becomes exactly
one of them when two neighbouring letters swap back, is spelt as the patterns spell it. Only
swaps: "ignored" stays "ignored" (a word of its own, one letter from "ignore"), and a word that
swaps back into two pattern words stays as typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A pattern read as words: its escapes ("\b", "\s") are breaks and its character classes
#: ("[eè]") are not letters, so "\bignore\s+instructions" gives "ignore" and "instructions".
_ESCAPE = re.compile(r"\\[a-zA-Z]")
_CLASS = re.compile(r"\[[^\]]*\]")
_LITERAL = re.compile(r"(?<![a-z])[a-z]{5,}(?![a-z])")
#: A word of a message that may be respelt; longer runs of letters are no word (and each would cost
#: as many swapped copies as it has letters).
_WORD = re.compile(r"(?<![a-z])[a-z]{5,30}(?![a-z])")


class Respeller:
    def __init__(self, vocabulary: Iterable[str]) -> None:
        self._vocabulary = frozenset(vocabulary)

    @classmethod
    def from_patterns(cls, patterns: Iterable[str]) -> Respeller:
        return cls(word for pattern in patterns
                   for word in _LITERAL.findall(_CLASS.sub("#", _ESCAPE.sub(" ", pattern))))

    def respell(self, text: str) -> str | None:
        """`text` with its swapped pattern words put right, or None when nothing changed."""
        fixed = _WORD.sub(self._fix, text)
        return fixed if fixed != text else None

    def respelt(self, views: list[str]) -> list[str]:
        """The respelt form of each view that has one, leaving out those already among `views`."""
        found = (self.respell(view) for view in views)
        return list(dict.fromkeys(view for view in found if view is not None and view not in views))

    def _fix(self, match: re.Match[str]) -> str:
        word = match.group(0)
        if word in self._vocabulary:
            return word
        swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
        found = swapped & self._vocabulary
        return found.pop() if len(found) == 1 else word
