"""Strict parsing of a language model's verdict (Security Judge model tier, Guardrail).

The model must answer one JSON object `{"verdict": "allow"|"block", "reason": str, "rules": [str]}`
(optionally `"score": float`), bare or in a single ```json fence. Anything else is a protocol
error, never an allow: a guard that cannot be read fails closed.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import ValidationError

from guards.schema import Verdict
from pipeline.core.errors import GuardProtocolError

_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(?P<body>.*?)\n?```\Z", re.DOTALL | re.IGNORECASE)


def parse_llm_verdict(text: str, *, tier: Literal["model"] = "model", guard: str = "judge") -> Verdict:
    """Validate a model's answer into a `Verdict` of `tier`, or raise `GuardProtocolError`."""
    body = text.strip()
    if fenced := _FENCE.match(body):
        body = fenced.group("body").strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise GuardProtocolError(f"model verdict is not JSON: {exc.msg}", guard=guard) from None
    if not isinstance(data, dict):
        raise GuardProtocolError(f"model verdict is a JSON {type(data).__name__}, not an object", guard=guard)
    if data.get("tier", tier) != tier:
        raise GuardProtocolError(f"model verdict claims tier {data['tier']!r}", guard=guard)
    try:
        return Verdict.model_validate({**data, "tier": tier}, strict=True)
    except ValidationError as exc:
        fields = ", ".join(".".join(map(str, err["loc"])) or "verdict" for err in exc.errors())
        raise GuardProtocolError(f"model verdict does not validate ({fields})", guard=guard) from None
