"""The scope's requests: each example blocks on its own rule, no near miss or retail case blocks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from guards.guardrail.requests import request_verdict
from guards.guardrail.scope import SCOPE_FILE, Scope, scope
from guards.judge.decoders import variants
from guards.judge.rules import Rule

REQUESTS = scope().requests
CASES = Path(__file__).resolve().parents[2] / "evals" / "cases" / "judge"
EXAMPLES = [(rule, text) for rule in REQUESTS for text in rule.examples]
COUNTER = [text for rule in REQUESTS for text in rule.counter_examples]


def _retail() -> list[str]:
    """Every turn our case files call legitimate: a request rule must leave all of them to the model."""
    return [case["text"] for case in yaml.safe_load((CASES / "legit.yaml").read_text("utf-8"))["cases"]]


@pytest.mark.parametrize(("rule", "text"), EXAMPLES, ids=[f"{r.id}:{t[:30]}" for r, t in EXAMPLES])
def test_every_example_is_blocked_by_its_rule(rule: Rule, text: str) -> None:
    verdict = request_verdict(text, REQUESTS)
    assert verdict is not None and (verdict.verdict, verdict.tier) == ("block", "pattern")
    assert rule.id in verdict.rules


@pytest.mark.parametrize("text", COUNTER + _retail())
def test_no_request_rule_blocks_a_near_miss_or_a_customer(text: str) -> None:
    assert request_verdict(text, REQUESTS) is None


def test_triggers_never_hide_a_pattern_match() -> None:
    hidden = [(rule.id, view) for text in [t for _, t in EXAMPLES] + COUNTER + _retail()
              for view in variants(text) for rule in REQUESTS
              if rule.regex.search(view) and not rule.triggered(view)]
    assert hidden == []


def test_the_requests_are_the_scopes_off_topic_kind() -> None:
    assert REQUESTS and {rule.category for rule in REQUESTS} == {"off_topic"}
    assert all(rule.id.startswith("gr.") for rule in REQUESTS)


@pytest.mark.parametrize("pattern", ["(unclosed", "(poem|song)"])
def test_a_request_pattern_that_would_fail_on_a_message_fails_at_load(pattern: str) -> None:
    raw = yaml.safe_load(SCOPE_FILE.read_text("utf-8"))
    raw["requests"][0]["patterns"] = [pattern]
    with pytest.raises(ValueError, match=r"RE2|groups"):
        Scope.model_validate(raw)
