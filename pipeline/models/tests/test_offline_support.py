"""The offline support model driven through a real ADK Runner (cases: `cases/support_cases.yaml`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.events import Event
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from evals.fake_shop import SHOP_FILE, FakeShop
from guards.classifier.embedders import E5Embedder
from pipeline.models.offline_support import OfflineSupportLlm
from pipeline.models.prompts import SUPPORT_INSTRUCTION
from pipeline.models.request_view import with_memories

CASES_DIR = Path(__file__).parent / "cases"
CASES = yaml.safe_load((CASES_DIR / "support_cases.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def support_llm(e5: E5Embedder) -> OfflineSupportLlm:
    return OfflineSupportLlm.build(e5)


async def _run_turn(runner: Runner, session_id: str, message: str) -> list[Event]:
    content = types.Content(role="user", parts=[types.Part(text=message)])
    return [event async for event in runner.run_async(user_id="ada", session_id=session_id, new_message=content)]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_support_case(case: dict[str, Any], support_llm: OfflineSupportLlm) -> None:
    shop = FakeShop.from_yaml(SHOP_FILE)
    memories = case.get("memories", [])

    def add_memories(_: CallbackContext, llm_request: LlmRequest) -> None:
        # Where the desk's SupportAgent puts them: beside the message, never in the instruction.
        llm_request.contents = with_memories(llm_request.contents, memories)

    agent = LlmAgent(name="support", model=support_llm, instruction=SUPPORT_INSTRUCTION, tools=shop.tools(),
                     before_model_callback=add_memories)
    sessions = InMemorySessionService()
    runner = Runner(app_name="models-test", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="models-test", user_id="ada")
    for turn in case["turns"]:
        shop.calls.clear()
        events = await _run_turn(runner, session.id, turn["message"])
        assert [[name, args] for name, args in shop.calls] == turn["calls"]
        model_events = [e for e in events if e.author == "support" and e.content and e.content.role == "model"]
        assert model_events and all(e.usage_metadata and e.usage_metadata.total_token_count for e in model_events)
        final = [e for e in events if e.is_final_response() and e.content and e.content.parts]
        assert len(final) == 1 and final[0].content is not None
        answer = "".join(p.text or "" for p in final[0].content.parts or [])
        decision = (final[0].custom_metadata or {})["decision"]
        if "intent" in turn:
            assert decision["intent"] == turn["intent"]
        assert decision["evidence"] and isinstance(decision["score"], float)
        for text in turn.get("contains", []):
            assert text in answer
        for text in turn.get("excludes", []):
            assert text not in answer
    if "actions" in case:
        assert [list(a) for a in shop.actions] == case["actions"]
