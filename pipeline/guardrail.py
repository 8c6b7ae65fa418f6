"""The Guardrail: is this message about our shop? An in-process ADK agent, fresh session per turn.

The scope's requests (a poem, a script, the weather: `guards/guardrail/requests.py`) block first,
then code fast paths allow (`guards/guardrail/fast_path.py`, and a message of nothing but contact
details: `guards/guardrail/contact.py`); anything else is for the model.
The offline model is multilingual (`guards/classifier/offline_llm.py`). The model's answer
must parse into the verdict schema; anything else is GuardProtocolError.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from guards.guardrail.requests import code_verdict
from guards.guardrail.scope import Scope, scope
from guards.judge.rules import FastPath
from guards.llm_verdict import parse_llm_verdict
from guards.schema import Verdict
from pipeline.core.adk_run import run_config
from pipeline.core.errors import GuardProtocolError
from pipeline.models.prompts import GUARDRAIL_INSTRUCTION

APP = "supportdesk-guardrail"
VERDICT_TOKENS = 256
WARM_UP_PROBE = "Hello, I have a question about my order."
@dataclass(frozen=True)
class GuardrailResult:
    verdict: Verdict
    input_tokens: int = 0
    output_tokens: int = 0


class Guardrail:
    def __init__(self, llm: BaseLlm, fast_path: FastPath, written_scope: Scope | None = None) -> None:
        self._fast_path = fast_path
        self._scope = written_scope or scope()
        self._sessions = InMemorySessionService()
        agent = LlmAgent(
            name="guardrail", model=llm, instruction=lambda _ctx: GUARDRAIL_INSTRUCTION,
            generate_content_config=types.GenerateContentConfig(max_output_tokens=VERDICT_TOKENS, temperature=0),
        )
        self._runner = Runner(app_name=APP, agent=agent, session_service=self._sessions)
        self._run_config = run_config()

    async def check(self, text: str) -> GuardrailResult:
        decided = code_verdict(text, self._fast_path, self._scope)
        if decided is not None:
            return GuardrailResult(decided)
        return await self._ask_model(text)

    async def warm_up(self) -> None:
        """Ask the model once, at start-up: ADK's first run initialises for a few hundred ms on the
        event loop, which must not happen during a customer's turn, beside the Judge's round trip."""
        await self._ask_model(WARM_UP_PROBE)

    async def _ask_model(self, text: str) -> GuardrailResult:
        # A fresh session per turn: no earlier message can steer this decision.
        session = await self._sessions.create_session(app_name=APP, user_id="guardrail",
                                                      session_id=uuid.uuid4().hex)
        answer, tokens_in, tokens_out = "", 0, 0
        try:
            async for event in self._runner.run_async(
                    user_id="guardrail", session_id=session.id,
                    new_message=types.Content(role="user", parts=[types.Part(text=text)]),
                    run_config=self._run_config):
                if event.usage_metadata:
                    tokens_in += event.usage_metadata.prompt_token_count or 0
                    tokens_out += event.usage_metadata.candidates_token_count or 0
                if event.content and event.content.parts:
                    answer += "".join(part.text or "" for part in event.content.parts if not part.thought)
        finally:
            await self._sessions.delete_session(app_name=APP, user_id="guardrail", session_id=session.id)
        if not answer.strip():
            raise GuardProtocolError("guardrail model returned no verdict", guard="guardrail")
        return GuardrailResult(parse_llm_verdict(answer, guard="guardrail"), tokens_in, tokens_out)
