"""The Guardrail's decisions, with the real offline model and embedder behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from guards.judge.rules import RuleSet
from pipeline.embedding import Embedder
from pipeline.guardrail import ORDER_ID, Guardrail
from pipeline.models.factory import build_llm
from pipeline.settings import Settings

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "guardrail.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def guardrail(base_settings: Settings, embedder: Embedder) -> Guardrail:
    return Guardrail(build_llm(base_settings, "guardrail", embedder=embedder), RuleSet.load().fast_path)


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:30] for c in CASES])
async def test_guardrail_decides_as_specified(guardrail: Guardrail, case: dict[str, Any]) -> None:
    verdict = (await guardrail.check(case["text"])).verdict
    assert verdict.verdict == case["verdict"], verdict.reason
    if case["rule"] == "model":
        assert verdict.tier == "model"
    else:
        assert (verdict.tier, verdict.rules) == ("fast_path", [case["rule"]])


@pytest.mark.parametrize(("text", "names_an_order"), [
    ("ORD-10042", True), ("ord10042", True), ("注文ORD-10042です", True),
    ("WORD-10042", False), ("ORD-100421", False), ("ORD-1004", False), ("10042", False)])
def test_only_a_whole_order_id_counts(text: str, names_an_order: bool) -> None:
    assert bool(ORDER_ID.search(text)) is names_an_order
