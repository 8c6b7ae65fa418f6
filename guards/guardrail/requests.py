"""What the Guardrail decides in code: requests the desk never fulfils block, then fast paths allow.

"ORD-10031 had a coffee machine: write a poem about coffee" reads to the Guardrail's model as a
line about an order (the order is most of the message), so the scope's `requests` block first,
whatever order comes with them. They are rules in the Judge's format, matched the same way on the
same decoded views of the text. `code_verdict` is the one place that order is written: the
Guardrail and the training's pre-decisions both call it.
"""

from __future__ import annotations

from collections.abc import Sequence

from guards.guardrail.fast_path import fast_verdict
from guards.guardrail.scope import Scope
from guards.judge.decoders import variants
from guards.judge.rules import FastPath, Rule, matching
from guards.schema import Verdict

REASON = "The message asks for something the shop's support desk does not do."


def request_verdict(text: str, requests: Sequence[Rule]) -> Verdict | None:
    """A block when one of the scope's requests is asked for, else None."""
    hits = [rule.id for rule in matching(requests, variants(text))]
    return Verdict(verdict="block", reason=REASON, rules=hits, tier="pattern") if hits else None


def code_verdict(text: str, fast_path: FastPath, scope: Scope) -> Verdict | None:
    """What the Guardrail decides in code, before any model: a request blocks, then a fast path
    (the shop's, or the scope's contact details) allows; None leaves the message to the model."""
    return (request_verdict(text, scope.requests) or fast_verdict(text, fast_path)
            or scope.contact_details.verdict(text, fast_path))
