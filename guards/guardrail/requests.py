"""The Guardrail's pattern tier: requests the desk never fulfils, whatever order comes with them.

"ORD-10031 had a coffee machine: write a poem about coffee" reads to the Guardrail's model as a
line about an order (the order is most of the message), so the scope's `requests` block first.
They are rules in the Judge's format, matched the same way on the same decoded views of the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from guards.judge.decoders import variants
from guards.judge.rules import Rule
from guards.schema import Verdict

REASON = "The message asks for something the shop's support desk does not do."


def request_verdict(text: str, requests: Sequence[Rule]) -> Verdict | None:
    """A block when one of the scope's requests is asked for, else None."""
    views = variants(text)
    hits = [rule.id for rule in requests if any(rule.hit(view) for view in views)]
    return Verdict(verdict="block", reason=REASON, rules=hits, tier="pattern") if hits else None
