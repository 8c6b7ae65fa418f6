"""`parse_llm_verdict` accepts exactly the verdict JSON and turns everything else into a protocol error."""

from __future__ import annotations

import pytest

from guards.llm_verdict import parse_llm_verdict
from guards.schema import Verdict
from pipeline.core.errors import GuardProtocolError

ACCEPTED = [
    ('{"verdict": "allow", "reason": "shop question", "rules": []}',
     Verdict(verdict="allow", reason="shop question", tier="model")),
    ('{"verdict":"block","reason":"injection","rules":["prompt_injection"],"score":0.91}',
     Verdict(verdict="block", reason="injection", rules=["prompt_injection"], tier="model", score=0.91)),
    ('```json\n{"verdict": "block", "reason": "r", "rules": ["a", "b"]}\n```',
     Verdict(verdict="block", reason="r", rules=["a", "b"], tier="model")),
    ('  ```\n{"verdict": "allow", "reason": "ok"}\n```  ', Verdict(verdict="allow", reason="ok", tier="model")),
    ('{"verdict": "allow", "reason": "ok", "tier": "model", "score": 1}',
     Verdict(verdict="allow", reason="ok", tier="model", score=1.0)),
]


@pytest.mark.parametrize(("text", "expected"), ACCEPTED)
def test_valid_answers_parse_into_a_model_verdict(text: str, expected: Verdict) -> None:
    assert parse_llm_verdict(text) == expected


REJECTED = [
    "",
    "allow",
    "I think this message is safe.",
    '{"verdict": "allow", "reason": "ok"} and some prose',
    'Sure! {"verdict": "allow", "reason": "ok"}',
    "[]",
    '"allow"',
    "null",
    '{"verdict": "maybe", "reason": "unsure"}',
    '{"verdict": "ALLOW", "reason": "ok"}',
    '{"verdict": "allow"}',
    '{"reason": "no verdict"}',
    '{"verdict": "allow", "reason": "ok", "rules": "none"}',
    '{"verdict": "allow", "reason": "ok", "rules": [1]}',
    '{"verdict": "allow", "reason": "ok", "confidence": 0.2}',
    '{"verdict": "allow", "reason": "ok", "tier": "pattern"}',
    '{"verdict": "allow", "reason": "ok", "score": "high"}',
    '{"verdict": true, "reason": "ok"}',
    '{"verdict": "allow", "reason": "' + "x" * 501 + '"}',
    '```json\n{"verdict": "allow", "reason": "ok"}',
    '```json\n{"verdict": "allow", "reason": "ok"}\n```\n```json\n{"verdict": "block", "reason": "x"}\n```',
]


@pytest.mark.parametrize("text", REJECTED)
def test_anything_else_is_a_protocol_error_never_an_allow(text: str) -> None:
    with pytest.raises(GuardProtocolError) as caught:
        parse_llm_verdict(text)
    assert caught.value.guard == "judge"


def test_the_guard_name_is_carried_for_other_callers() -> None:
    with pytest.raises(GuardProtocolError) as caught:
        parse_llm_verdict("nope", guard="guardrail")
    assert caught.value.guard == "guardrail"
