"""Hosted adapters against recorded provider payloads on a loopback replay server (no network).

Cases: `cases/adapter_cases.yaml`. The model is built the production way (`build_hosted` with
settings), only pointed at the replay server and given a short first backoff.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from evals.fake_shop import SHOP_FILE, FakeShop
from guards.llm.providers import build_hosted
from pipeline.core.errors import ModelRefused, ModelUnavailable
from pipeline.core.settings import Settings
from pipeline.models.prompts import SUPPORT_INSTRUCTION
from pipeline.models.tests.replay_server import Exchange, ReplayServer

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "adapter_cases.yaml").read_text(encoding="utf-8"))
MAX_OUTPUT_TOKENS = 256
MODELS = {"gemini": "gemini-2.5-flash", "litellm": "litellm/openai/gpt-4o-mini"}


def _model(case: dict[str, Any], replay: ReplayServer, make_settings: Callable[..., Settings]) -> BaseLlm:
    common = {"model_timeout_s": case.get("timeout_s", 10.0), "model_max_retries": 2,
              "model_max_output_tokens": MAX_OUTPUT_TOKENS, "supportdesk_model": MODELS[case["provider"]]}
    if case["provider"] == "gemini":
        settings = make_settings(google_api_key="test-key", **common)
        return build_hosted(settings, gemini_base_url=replay.base_url, backoff_initial_s=0.01)
    if importlib.util.find_spec("litellm") is None:
        pytest.skip("litellm is not installed (google-adk[extensions])")
    settings = make_settings(litellm_api_base=f"{replay.base_url}/v1", litellm_api_key="sk-test", **common)
    return build_hosted(settings, backoff_initial_s=0.01)


def _request() -> LlmRequest:
    declarations = [tool._get_declaration() for tool in FakeShop({}, "nobody@example.test").shop_tools()]
    return LlmRequest(
        contents=[types.Content(role="user", parts=[types.Part(text="Where is my order 10042?")])],
        config=types.GenerateContentConfig(
            system_instruction=SUPPORT_INSTRUCTION,
            tools=[types.Tool(function_declarations=declarations)],
        ),
    )


async def _generate(llm: BaseLlm) -> list[LlmResponse]:
    return [r async for r in llm.generate_content_async(_request())]


def _sent_output_cap(provider: str, body: dict[str, Any]) -> Any:
    if provider == "gemini":
        return body["generationConfig"]["maxOutputTokens"]
    return body.get("max_completion_tokens", body.get("max_tokens"))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_adapter(case: dict[str, Any], replay: ReplayServer,
                       make_settings: Callable[..., Settings]) -> None:
    llm = _model(case, replay, make_settings)
    replay.load([Exchange.recorded(e["recording"], status=e.get("status", 200), delay_s=e.get("delay_s", 0.0))
                 for e in case["exchanges"]])
    expect = case["expect"]
    if expect["kind"] in ("refused", "unavailable"):
        error = ModelRefused if expect["kind"] == "refused" else ModelUnavailable
        with pytest.raises(error, match=expect["detail"]):
            await _generate(llm)
    else:
        responses = await _generate(llm)
        assert len(responses) == 1
        parts = responses[0].content.parts if responses[0].content and responses[0].content.parts else []
        if expect["kind"] == "tool_call":
            calls = [p.function_call for p in parts if p.function_call]
            assert [(c.name, c.args) for c in calls] == [(expect["name"], expect["args"])]
        else:
            assert expect["contains"] in "".join(p.text or "" for p in parts)
        if "prompt_tokens" in expect:
            assert responses[0].usage_metadata is not None
            assert responses[0].usage_metadata.prompt_token_count == expect["prompt_tokens"]
    assert len(replay.requests) == expect["requests"]
    assert all(_sent_output_cap(case["provider"], body) == MAX_OUTPUT_TOKENS for _, body in replay.requests)


def _tool_result_sent(provider: str, body: dict[str, Any]) -> Any:
    """The tool rows the adapter sent back to the provider in its second request."""
    if provider == "gemini":
        parts = [p for c in body["contents"] for p in c.get("parts", []) if "functionResponse" in p]
        return parts[-1]["functionResponse"]["response"]
    tool_messages = [m for m in body["messages"] if m["role"] == "tool"]
    return json.loads(tool_messages[-1]["content"])


@pytest.mark.parametrize("provider", ["gemini", "litellm"])
async def test_turn_through_runner(provider: str, replay: ReplayServer,
                                   make_settings: Callable[..., Settings]) -> None:
    """A recorded tool call, the real tool run by ADK, then the recorded answer: one full turn."""
    folder = "gemini" if provider == "gemini" else "openai"
    llm = _model({"provider": provider}, replay, make_settings)
    replay.load([Exchange.recorded(f"{folder}/tool_call.json"), Exchange.recorded(f"{folder}/final_answer.json")])
    shop = FakeShop.from_yaml(SHOP_FILE)
    agent = LlmAgent(name="support", model=llm, instruction=SUPPORT_INSTRUCTION, tools=shop.tools())
    sessions = InMemorySessionService()
    runner = Runner(app_name="adapters", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="adapters", user_id="ada")
    message = types.Content(role="user", parts=[types.Part(text="Where is my order 10042?")])
    events = [e async for e in runner.run_async(user_id="ada", session_id=session.id, new_message=message)]
    assert shop.calls == [("get-order-status", {"order_id": "ORD-10042"})]
    final = [e.content for e in events if e.is_final_response() and e.content and e.content.parts]
    assert len(final) == 1 and "has shipped" in "".join(p.text or "" for p in final[0].parts or [])
    assert len(replay.requests) == 2
    assert _tool_result_sent(provider, replay.requests[1][1]) == shop.get_order_status("ORD-10042")
