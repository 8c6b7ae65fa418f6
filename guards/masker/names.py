"""Person names, an optional type: on for free text such as delivery notes, off in the shop's
answers (they greet the customer by name, and a masked greeting helps nobody).

A run of one to three capitalised words counts as a name only after a title ("Mrs. Angela Russo",
"Herrn Markus Vogel") or a phrase that introduces a person ("my name is", "leave it with my
neighbour", "Attn:", "Kind regards,"). Capitalised words alone are as often products, places or a
shouted sentence; spaCy's small English model was measured for this (presidio-synth PERSON: recall
0.64, precision 0.70, ~5 ms per sentence) and does not pay for itself here.
"""

from __future__ import annotations

import re

from guards.masker.base import Span, keyword_pattern, load_terms

_UP = "[A-ZÀ-ÖØ-ÞĀ-žΑ-ΩА-ЯЁ]"
# "Ortiz", "O'Brien", "Núñez-Vega", "McPherson"; an initial ("J.") only inside the run.
_NAME_WORD = rf"(?:{_UP}[a-zß-öø-ÿā-ž]+(?:['’-]{_UP}?[a-zß-öø-ÿā-ž]+)*+|{_UP}'{_UP}[a-zß-öø-ÿā-ž]+)"
_RUN = rf"(?:{_NAME_WORD})(?:[ \t]+(?:{_UP}\.[ \t]+)?(?:{_NAME_WORD})){{0,2}}"


class NameDetector:
    type = "NAME"

    def __init__(self) -> None:
        terms = load_terms("name_terms.yaml")
        kept = "|".join(re.escape(t) for t in sorted(terms["titles_kept"], key=len, reverse=True))
        dropped = "|".join(re.escape(t) for t in sorted(terms["titles_dropped"], key=len, reverse=True))
        # A title is part of the name in English and French ("Mrs. Angela Russo", "M. Julien Moreau");
        # a German "Herrn"/"Frau" is grammar, not part of it.
        self._titled = re.compile(
            rf"(?<!\w)(?:(?P<kept>(?:{kept})\.?[ \t]+{_RUN})|(?:{dropped})[ \t]+(?P<name>{_RUN}))(?!\w)")
        cues = keyword_pattern(terms["cues"]).pattern
        self._after_cue = re.compile(
            rf"(?i:{cues})[ \t]*+[:,]?[ \t]*+\n?[ \t]*+(?:(?i:my|our)[ \t]++\w++[ \t]++)?(?P<name>{_RUN})(?!\w)")
        # A full name set off by a comma and an exclamation: "Thanks for waiting, Jordan Baker!".
        self._addressed = re.compile(rf",[ \t]+(?P<name>{_NAME_WORD}[ \t]+(?:{_NAME_WORD}))(?=!)")
        self._not_names = frozenset(w.casefold() for w in terms["not_names"])

    def titled(self, text: str) -> list[Span]:
        """The names after a title ("Mrs. Angela Russo", "Herrn Markus Vogel"): someone named, never a
        greeting's or a signature's own name (the offline agent reads these, `pipeline/models/others.py`)."""
        spans = []
        for match in self._titled.finditer(text):
            group = "kept" if match["kept"] else "name"
            spans.append(Span(self.type, match.start(group), match.end(group)))
        return spans

    def find(self, text: str) -> list[Span]:
        spans = self.titled(text)
        spans += [Span(self.type, *m.span("name")) for m in self._addressed.finditer(text)]
        for named in self._after_cue.finditer(text):
            if named["name"].split()[0].casefold() not in self._not_names:
                spans.append(Span(self.type, *named.span("name")))
        return spans
