"""The Security Judge service, through a2a-sdk's client: the desk's cases, each tier for its reason."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from evals.guard_cases import judge_cases
from guards.judge import RuleSet
from guards.schema import JudgeReply
from services.tests.fixtures import GuardEndpoint
from services.tests.sdk import SdkGuard, sdk_guard, sdk_reply

RULES = RuleSet.load()
RULE_IDS = {rule.id for rule in RULES.rules}
ATTACKS = judge_cases("attacks.yaml")
LEGIT = judge_cases("legit.yaml")
RULE_EXAMPLES = [(rule.id, example) for rule in RULES.rules for example in rule.examples]


@pytest.fixture(scope="module")
async def sdk(judge_service: GuardEndpoint) -> AsyncIterator[SdkGuard]:
    async with sdk_guard(judge_service) as guard:
        yield guard


async def screened(sdk: SdkGuard, text: str) -> JudgeReply:
    return await sdk_reply(sdk, text, JudgeReply)


@pytest.mark.parametrize(("rule_id", "text"), RULE_EXAMPLES, ids=[f"{r}-{i}" for i, (r, _) in enumerate(RULE_EXAMPLES)])
async def test_the_pattern_tier_blocks_each_rule_example_by_that_rule(
    sdk: SdkGuard, rule_id: str, text: str
) -> None:
    verdict = await screened(sdk, text)
    assert (verdict.verdict, verdict.tier) == ("block", "pattern")
    assert rule_id in verdict.rules and set(verdict.rules) <= RULE_IDS
    assert verdict.score is None and verdict.reading is None


@pytest.mark.parametrize("text", RULES.fast_path.examples)
async def test_the_fast_path_allows_its_examples(sdk: SdkGuard, text: str) -> None:
    verdict = await screened(sdk, text)
    assert (verdict.verdict, verdict.tier, verdict.rules) == ("allow", "fast_path", [RULES.fast_path.id])


RULE_DECIDED = [case for case in ATTACKS if not case.get("needs_model")]
MODEL_ATTACKS = [case for case in ATTACKS if case.get("needs_model")]


@pytest.mark.parametrize("case", RULE_DECIDED, ids=[f"attack-{i}" for i in range(len(RULE_DECIDED))])
async def test_pattern_attacks_are_blocked_by_a_rule(sdk: SdkGuard,
                                                     case: dict[str, Any]) -> None:
    verdict = await screened(sdk, case["text"])
    assert (verdict.verdict, verdict.tier) == ("block", "pattern"), verdict.reason
    assert verdict.rules and set(verdict.rules) <= RULE_IDS


def _known_offline_miss(case: dict[str, Any]) -> Any:
    mark = pytest.mark.xfail(strict=True, reason="the offline model tier allows this paraphrase; see the case file")
    return pytest.param(case, marks=[mark] if case.get("offline_model_misses") else [])


@pytest.mark.parametrize("case", [_known_offline_miss(c) for c in MODEL_ATTACKS],
                         ids=[f"model-attack-{i}" for i in range(len(MODEL_ATTACKS))])
async def test_attacks_no_rule_catches_are_blocked_by_the_model(sdk: SdkGuard,
                                                                case: dict[str, Any]) -> None:
    verdict = await screened(sdk, case["text"])
    assert verdict.tier == "model" and verdict.score is not None
    assert verdict.reading is not None, "a reading comes with a block too (the desk may be waiting for it)"
    assert verdict.verdict == "block", verdict.reason


@pytest.mark.parametrize("case", LEGIT, ids=[f"legit-{i}" for i in range(len(LEGIT))])
async def test_ordinary_messages_are_allowed(sdk: SdkGuard, case: dict[str, Any]) -> None:
    verdict = await screened(sdk, case["text"])
    assert verdict.verdict == "allow", f"{verdict.tier}: {verdict.reason}"
    assert verdict.tier in ("fast_path", "model")
    assert (verdict.score is not None) == (verdict.tier == "model")
    # The vector of a message the model read, for the desk's Guardrail and agent; no other.
    assert (verdict.reading is not None) == (verdict.tier == "model")
