"""The Judge over this desk's own case files (`evals/cases/judge/`), with the model as a test double.

`ScriptedModel` stands in for the model tier only: it answers a fixed verdict (or one per text)
and records what reached it, so each test can say which tier decided and why.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from guards.judge import JudgeEngine, RuleSet
from guards.schema import Verdict
from guards.tests.doubles import ScriptedModel

CASES = Path(__file__).resolve().parents[2] / "evals" / "cases" / "judge"
RULES = RuleSet.load()


def _load(name: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((CASES / name).read_text("utf-8"))
    return [{**case, "expect": data["expect"]} for case in data["cases"]]


ATTACKS = _load("attacks.yaml")
LEGIT = _load("legit.yaml")
PATTERN_ATTACKS = [case for case in ATTACKS if not case.get("needs_model")]
MODEL_ATTACKS = [case for case in ATTACKS if case.get("needs_model")]


def _ids(cases: list[dict[str, Any]]) -> list[str]:
    return [f"{c.get('category', c.get('topic'))}:{c['text'][:40]}" for c in cases]


def test_case_files_are_big_enough_and_cover_every_category() -> None:
    assert len(ATTACKS) >= 150 and len(LEGIT) >= 150
    assert {case["expect"] for case in ATTACKS} == {"block"}
    assert {case["expect"] for case in LEGIT} == {"allow"}
    categories = Counter(case["category"] for case in PATTERN_ATTACKS)
    assert set(categories) == set(RULES.categories)
    assert min(categories.values()) >= 10


@pytest.mark.parametrize("case", PATTERN_ATTACKS, ids=_ids(PATTERN_ATTACKS))
async def test_attack_is_blocked_by_patterns_even_when_the_model_would_allow(case: dict[str, Any]) -> None:
    model = ScriptedModel("allow")
    verdict = await JudgeEngine(RULES, model).decide(case["text"])
    assert (verdict.verdict, verdict.tier) == ("block", "pattern")
    assert verdict.rules and set(verdict.rules) <= {rule.id for rule in RULES.rules}
    assert model.seen == []


@pytest.mark.parametrize("case", MODEL_ATTACKS, ids=_ids(MODEL_ATTACKS))
async def test_needs_model_attack_really_reaches_the_model_and_its_block_holds(case: dict[str, Any]) -> None:
    """Keeps `needs_model` honest: no rule catches it (else drop the flag) and the fast path never allows it."""
    model = ScriptedModel("allow", block=frozenset({case["text"]}))
    engine = JudgeEngine(RULES, model)
    assert engine.decide_rules(case["text"]) is None
    verdict = await engine.decide(case["text"])
    assert (verdict.verdict, verdict.tier) == ("block", "model")
    assert model.seen == [case["text"]]


@pytest.mark.parametrize("case", ATTACKS, ids=_ids(ATTACKS))
def test_fast_path_never_allows_an_attack(case: dict[str, Any]) -> None:
    verdict = JudgeEngine(RULES, ScriptedModel("allow")).decide_rules(case["text"])
    assert verdict is None or verdict.tier != "fast_path"


@pytest.mark.parametrize("case", LEGIT, ids=_ids(LEGIT))
async def test_legit_message_is_allowed_by_fast_path_or_model(case: dict[str, Any]) -> None:
    model = ScriptedModel("allow")
    verdict = await JudgeEngine(RULES, model).decide(case["text"])
    assert verdict.verdict == "allow"
    assert verdict.tier in ("fast_path", "model")
    assert (model.seen == []) == (verdict.tier == "fast_path")


async def test_each_tier_decides_some_cases_for_the_right_reason() -> None:
    texts = [case["text"] for case in ATTACKS + LEGIT]
    model = ScriptedModel("allow", block=frozenset(case["text"] for case in MODEL_ATTACKS))
    engine = JudgeEngine(RULES, model)
    decided: Counter[tuple[str, str]] = Counter()
    for text in texts:
        verdict = await engine.decide(text)
        decided[(verdict.tier, verdict.verdict)] += 1
        if verdict.tier == "fast_path":
            assert verdict.rules == [RULES.fast_path.id]
        elif verdict.tier == "model":
            assert verdict.rules == ["scripted"]
    assert decided[("pattern", "block")] == len(PATTERN_ATTACKS)
    assert decided[("model", "block")] == len(MODEL_ATTACKS)
    assert decided[("fast_path", "allow")] >= 1 and decided[("model", "allow")] >= 1
    assert len(model.seen) == decided[("model", "block")] + decided[("model", "allow")]


@pytest.mark.parametrize("case", ATTACKS + LEGIT, ids=_ids(ATTACKS + LEGIT))
async def test_reasons_never_echo_the_message(case: dict[str, Any]) -> None:
    class EchoingModel:
        async def judge(self, text: str) -> Verdict:
            return Verdict(verdict="block", reason=f"because it says: {text}"[:500], tier="model")

    verdict = await JudgeEngine(RULES, EchoingModel()).decide(case["text"])
    message, reason = " ".join(case["text"].lower().split()), verdict.reason.lower()
    assert message not in reason and message[:24] not in reason
