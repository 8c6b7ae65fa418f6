"""Offline Guardrail and Judge models through a real ADK Runner, built by `build_llm`.

Cases: `cases/guardrail_cases.yaml`, `cases/judge_cases.yaml`. Each answer must parse with the
desk's strict verdict parser and name its evidence (an exemplar id) and score.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from guards.llm_verdict import parse_llm_verdict
from guards.schema import Verdict
from pipeline.embedding import Embedder
from pipeline.models.exemplars import load_data_file
from pipeline.models.factory import Role, build_llm
from pipeline.models.prompts import GUARDRAIL_INSTRUCTION
from pipeline.settings import Settings

CASES_DIR = Path(__file__).parent / "cases"
GUARDRAIL = yaml.safe_load((CASES_DIR / "guardrail_cases.yaml").read_text(encoding="utf-8"))
JUDGE = yaml.safe_load((CASES_DIR / "judge_cases.yaml").read_text(encoding="utf-8"))
#: The offline judge's calibrated cut-off (report_quality.py: ≤ 1.1% false blocks on tau-bench,
#: banking77 and CLINC150), proposed as the `judge_model_threshold` default.
JUDGE_THRESHOLD = 0.5


def _cases(data: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(verdict, text) for verdict, texts in data.items() for text in texts]


def _exemplar_ids(name: str) -> set[str]:
    data = load_data_file(name)
    groups = [data["on_topic"], data["off_topic"]] if "on_topic" in data else [data["benign"],
                                                                                 *data["attacks"].values()]
    return {e["id"] for group in groups for e in group}


@pytest.fixture(scope="module")
def guard_llms(embedder: Embedder, make_settings: Callable[..., Settings]) -> dict[Role, BaseLlm]:
    settings = make_settings(supportdesk_model="offline", judge_model_threshold=JUDGE_THRESHOLD)
    return {role: build_llm(settings, role, embedder=embedder) for role in ("guardrail", "judge")}


async def _verdict(role: Role, message: str, llm: BaseLlm) -> Verdict:
    agent = LlmAgent(name=role, model=llm, instruction=GUARDRAIL_INSTRUCTION)
    sessions = InMemorySessionService()
    runner = Runner(app_name="guards-test", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="guards-test", user_id="ada")
    content = types.Content(role="user", parts=[types.Part(text=message)])
    events = [e async for e in runner.run_async(user_id="ada", session_id=session.id, new_message=content)]
    final = [e.content for e in events if e.is_final_response() and e.content and e.content.parts]
    assert len(final) == 1 and all(e.usage_metadata for e in events if e.content)
    return parse_llm_verdict("".join(p.text or "" for p in final[0].parts or []), guard=role)


@pytest.mark.parametrize(("expected", "message"), _cases(GUARDRAIL), ids=lambda v: str(v)[:40])
async def test_guardrail(expected: str, message: str, guard_llms: dict[Role, BaseLlm]) -> None:
    verdict = await _verdict("guardrail", message, guard_llms["guardrail"])
    assert verdict.verdict == ("allow" if expected == "allow" else "block")
    assert verdict.score is not None and (verdict.score >= 0 or verdict.verdict == "block")
    assert verdict.rules[0].removeprefix("exemplar:") in _exemplar_ids("guardrail_exemplars.yaml")


@pytest.mark.parametrize(("expected", "message"), _cases(JUDGE), ids=lambda v: str(v)[:40])
async def test_judge(expected: str, message: str, guard_llms: dict[Role, BaseLlm]) -> None:
    verdict = await _verdict("judge", message, guard_llms["judge"])
    assert verdict.verdict == ("allow" if expected == "leans_attack" else expected)
    assert verdict.score is not None and (verdict.score >= JUDGE_THRESHOLD or verdict.verdict == "allow")
    evidence = verdict.rules[0].removeprefix("exemplar:")
    assert evidence in _exemplar_ids("attack_exemplars.yaml")
    if expected != "allow":
        assert evidence.startswith("atk-")
