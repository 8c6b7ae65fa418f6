"""Scripted models for the paths the offline model never takes (a looping or refusing model), and
one that records what the desk sends a model.

They stand where a hosted model would; everything around them — Toolbox, PostgreSQL, guards —
is real.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from google.adk.models._capabilities import LlmCapabilities
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import Field


class _ScriptedLlm(BaseLlm):
    """A model that plays the same `reply` to every request."""

    @property
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(output_schema_and_tools=False)

    def reply(self) -> LlmResponse:
        raise NotImplementedError

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                     ) -> AsyncGenerator[LlmResponse, None]:
        yield self.reply()


class GarbledVerdictLlm(_ScriptedLlm):
    """A guard model that answers prose instead of the verdict JSON."""

    model: str = "scripted-garbled-verdict"

    def reply(self) -> LlmResponse:
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="Sure! Happy to help.")]))


class LoopingLlm(_ScriptedLlm):
    """Asks for the same tool call with the same arguments every time."""

    model: str = "scripted-loop"
    order_id: str = "ORD-10001"

    def reply(self) -> LlmResponse:
        call = types.FunctionCall(name="get-order-status", args={"order_id": self.order_id})
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))


class RewordingLlm(_ScriptedLlm):
    """Records one request once per note in `notes` within a single turn, then answers."""

    model: str = "scripted-rewording"
    order_id: str = "ORD-10001"
    action: str = "delivery_instruction"
    notes: tuple[str, ...] = ()

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                     ) -> AsyncGenerator[LlmResponse, None]:
        # Tool results since the customer's latest message: how far this turn's script has got.
        turn: list[types.Content] = []
        for content in llm_request.contents:
            if content.role == "user" and any(p.text for p in content.parts or []):
                turn = []
            turn.append(content)
        done = sum(1 for c in turn for p in c.parts or [] if p.function_response is not None)
        if done < len(self.notes):
            call = types.FunctionCall(name="action-log", args={
                "order_id": self.order_id, "action": self.action, "note": self.notes[done]})
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
        else:
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="Noted.")]))


class RefusingLlm(_ScriptedLlm):
    """Answers like a provider whose safety filter blocked the response."""

    model: str = "scripted-refusal"

    def reply(self) -> LlmResponse:
        return LlmResponse(error_code="SAFETY", error_message="response blocked by the safety filter",
                           finish_reason=types.FinishReason.SAFETY)


class RecordingLlm(_ScriptedLlm):
    """Answers every request with a fixed text and keeps, per request, what a hosted model would read:
    the system instruction and the text of every content."""

    model: str = "scripted-recorder"
    systems: list[str] = Field(default_factory=list)
    contents: list[list[str]] = Field(default_factory=list)

    def reply(self) -> LlmResponse:
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="Noted, thank you.")]))

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                     ) -> AsyncGenerator[LlmResponse, None]:
        config = llm_request.config
        self.systems.append(str(config.system_instruction) if config and config.system_instruction else "")
        self.contents.append(["".join(p.text or "" for p in c.parts or []) for c in llm_request.contents])
        yield self.reply()
