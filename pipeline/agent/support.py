"""The support agent: one long-lived ADK Runner; one session per customer, bounded history.

The model sees at most `history_max_messages` messages, cut so that it never starts on an orphaned
tool call or result. This turn's recalled memories are untrusted data: they never enter the system
instruction, but reach each of this turn's model requests as a quoted user content just before the
customer's message (`with_memories`), through a context variable set around the run, so
concurrent turns of different customers never mix them and the stored history never holds them.
"""

from __future__ import annotations

import asyncio
import hashlib
import warnings
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from typing import Any, Protocol, runtime_checkable

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.events import Event as AdkEvent
from google.adk.features import FeatureName, override_feature_enabled
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from guards.llm.offline_answer import is_customer_message
from pipeline.core.adk_run import run_config
from pipeline.core.errors import ModelRefused, ModelUnavailable
from pipeline.models.prompts import SUPPORT_INSTRUCTION
from pipeline.models.request_view import with_memories

APP = "supportdesk"
_turn_memories: ContextVar[tuple[str, ...]] = ContextVar("turn_memories", default=())
#: ADK turns an exception raised in a tool or model call into an error event and drops the object;
#: the error callbacks keep it here so the pipeline can end the turn with the typed error.
_turn_failures: ContextVar[list[Exception] | None] = ContextVar("turn_failures", default=None)
#: Provider finish reasons that mean "refused", as opposed to "failed".
REFUSAL_CODES = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
                           "content_filter"})


def bounded_history(contents: list[types.Content], limit: int) -> list[types.Content]:
    """The last `limit` contents, moved forward to the first customer message."""
    tail = contents[-limit:]
    for index, content in enumerate(tail):
        if is_customer_message(content):
            return tail[index:]
    return tail[-1:]


@runtime_checkable
class PreparesMessage(Protocol):
    """A model with work to do on a message before its first call (the offline one embeds it)."""

    async def prepare(self, message: str) -> None: ...


class SupportAgent:
    def __init__(self, llm: BaseLlm, tools: Sequence[BaseTool | BaseToolset], *, max_output_tokens: int,
                 history_max_messages: int) -> None:
        self._history = history_max_messages
        self._preparing = llm if isinstance(llm, PreparesMessage) else None
        # ADK deep-copies a whole session on every read unless told otherwise; the desk never
        # mutates stored events, so a light copy is safe and keeps per-turn cost flat (measured:
        # the deep copies were the largest single cost of an offline turn).
        override_feature_enabled(FeatureName.IN_MEMORY_SESSION_SERVICE_LIGHT_COPY, True)
        warnings.filterwarnings("ignore", message=r"\[WIP\] feature IN_MEMORY_SESSION_SERVICE_LIGHT_COPY")
        self._sessions = InMemorySessionService()
        self._locks: dict[str, asyncio.Lock] = {}
        agent = LlmAgent(
            name="support_agent", model=llm, instruction=self._instruction, tools=list(tools),
            generate_content_config=types.GenerateContentConfig(max_output_tokens=max_output_tokens),
            before_model_callback=self._bound_history,
            on_model_error_callback=self._remember_model_failure,
            on_tool_error_callback=self._remember_tool_failure,
        )
        self._runner = Runner(app_name=APP, agent=agent, session_service=self._sessions)
        self._run_config = run_config()

    @staticmethod
    def _instruction(_: ReadonlyContext) -> str:
        # A provider, not a string: ADK would fill `{...}` placeholders of a string from state.
        return SUPPORT_INSTRUCTION

    def _bound_history(self, callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        llm_request.contents = with_memories(bounded_history(llm_request.contents, self._history),
                                             _turn_memories.get())

    @staticmethod
    def _remember(error: Exception) -> None:
        failures = _turn_failures.get()
        if failures is not None:
            failures.append(error)

    def _remember_model_failure(self, _ctx: CallbackContext, _request: LlmRequest, error: Exception) -> None:
        self._remember(error)

    def _remember_tool_failure(self, _tool: BaseTool, _args: dict[str, Any], _ctx: ToolContext,
                               error: Exception) -> None:
        self._remember(error)

    @staticmethod
    def _raise_for(event: AdkEvent, failures: list[Exception]) -> None:
        """An ADK error event ends the turn with the exception behind it (or a typed model error)."""
        if failures:
            raise failures[-1]
        detail = f"agent stopped: {event.error_code}: {event.error_message}"
        if event.error_code in REFUSAL_CODES:
            raise ModelRefused(detail)
        raise ModelUnavailable(detail)

    async def prepare(self, text: str) -> None:
        """Let the model start on this turn's message early; a hosted model has nothing to do."""
        if self._preparing is not None:
            await self._preparing.prepare(text)

    async def run(self, email: str, text: str, memories: Sequence[str]) -> AsyncIterator[AdkEvent]:
        """This customer's turn as ADK events; a failed tool or model call raises its typed error."""
        session_id = "customer-" + hashlib.sha256(email.encode()).hexdigest()[:24]
        lock = self._locks.setdefault(session_id, asyncio.Lock())
        async with lock:  # one turn at a time per customer: their history is one conversation
            if await self._sessions.get_session(app_name=APP, user_id=email, session_id=session_id) is None:
                await self._sessions.create_session(app_name=APP, user_id=email, session_id=session_id)
            failures: list[Exception] = []
            memories_token = _turn_memories.set(tuple(memories))
            failures_token = _turn_failures.set(failures)
            try:
                async for event in self._runner.run_async(
                        user_id=email, session_id=session_id,
                        new_message=types.Content(role="user", parts=[types.Part(text=text)]),
                    run_config=self._run_config):
                    if event.error_code:
                        self._raise_for(event, failures)
                    yield event
            finally:
                _turn_failures.reset(failures_token)
                _turn_memories.reset(memories_token)
                await self._compact(email, session_id)

    async def _compact(self, email: str, session_id: str) -> None:
        """Keep the stored history bounded too: past 2× the limit, keep only the last `limit` events.

        ADK rebuilds the prompt from every stored event on each model call, so a long stored history
        costs CPU on every turn even though the prompt itself is cut to `limit` messages.
        """
        session = await self._sessions.get_session(app_name=APP, user_id=email, session_id=session_id)
        if session is None or len(session.events) <= 2 * self._history:
            return
        tail = session.events[-self._history:]
        first = next((i for i, e in enumerate(tail) if e.content and is_customer_message(e.content)), len(tail))
        keep = tail[first:]
        await self._sessions.delete_session(app_name=APP, user_id=email, session_id=session_id)
        fresh = await self._sessions.create_session(app_name=APP, user_id=email, session_id=session_id)
        for event in keep:
            await self._sessions.append_event(fresh, event)
