"""What an offline model reads out of an `LlmRequest`: the customer's latest message, the tool
calls and results that followed it in this turn, and the memory block placed just before that
message (`with_memories` writes it there; never into the system instruction).

Only the contents after the latest customer message count: order facts from earlier turns may
be stale, and the support model must answer from this turn's tool results alone.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from pipeline.models.prompts import parse_memories, render_memories


@dataclass(frozen=True)
class ToolExchange:
    """One tool call of this turn and the response handed back to the model (not the Toolbox's own
    `toolbox.results.ToolResult`, which this response was made from)."""

    name: str
    args: dict[str, Any]
    response: dict[str, Any]

    @property
    def rows(self) -> list[dict[str, Any]]:
        rows = self.response.get("rows")
        return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


@dataclass(frozen=True)
class RequestView:
    """What `read_request` found in one `LlmRequest` (not `cli.render.TurnView`, the terminal's view)."""

    message: str
    results: list[ToolExchange] = field(default_factory=list)
    memories: list[str] = field(default_factory=list)
    tools: frozenset[str] = frozenset()

    def find(self, name: str, **args: str) -> ToolExchange | None:
        """The result of this turn's call to `name` whose arguments include `args`."""
        for result in self.results:
            if result.name == name and all(result.args.get(k) == v for k, v in args.items()):
                return result
        return None


def is_customer_message(content: types.Content) -> bool:
    """A customer's own words: a user message with text, not a tool result handed back."""
    parts = content.parts or []
    return (content.role == "user" and any(p.text for p in parts)
            and not any(p.function_response for p in parts))


def latest_user_text(llm_request: LlmRequest) -> str:
    """Text of the last customer message (the Judge and Guardrail send it as the last user part)."""
    for content in reversed(llm_request.contents):
        if is_customer_message(content):
            return "".join(p.text or "" for p in content.parts or [] if not p.thought)
    return ""


def system_text(llm_request: LlmRequest) -> str:
    instruction = llm_request.config.system_instruction if llm_request.config else None
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, types.Content):
        return "\n".join(p.text for p in instruction.parts or [] if p.text)
    return ""


def _latest_message_index(contents: list[types.Content]) -> int | None:
    return next((i for i in range(len(contents) - 1, -1, -1) if is_customer_message(contents[i])), None)


def with_memories(contents: list[types.Content], memories: Sequence[str]) -> list[types.Content]:
    """`contents` with the memory block as a user content of its own just before the customer's
    latest message: quoted data beside the message, never part of the instruction."""
    block = render_memories(memories)
    latest = _latest_message_index(contents)
    if not block or latest is None:
        return contents
    return [*contents[:latest], types.Content(role="user", parts=[types.Part(text=block)]), *contents[latest:]]


def _memories_before(contents: list[types.Content], index: int) -> list[str]:
    """The memories of the block `with_memories` put just before `contents[index]`."""
    if index == 0 or contents[index - 1].role != "user":
        return []
    return parse_memories("".join(p.text or "" for p in contents[index - 1].parts or []))


def read_request(llm_request: LlmRequest) -> RequestView:
    """The customer's latest message, this turn's tool exchanges after it, and the memories before it."""
    contents = llm_request.contents
    start = _latest_message_index(contents)
    if start is None:
        return RequestView(message="")
    calls: dict[str, types.FunctionCall] = {}
    unmatched: list[types.FunctionCall] = []
    results: list[ToolExchange] = []
    for content in contents[start + 1:]:
        for part in content.parts or []:
            if part.function_call:
                if part.function_call.id:
                    calls[part.function_call.id] = part.function_call
                else:
                    unmatched.append(part.function_call)
            elif part.function_response:
                resp = part.function_response
                call = calls.pop(resp.id, None) if resp.id else None
                if call is None:
                    call = next((c for c in unmatched if c.name == resp.name), None)
                    if call is not None:
                        unmatched.remove(call)
                results.append(ToolExchange(name=resp.name or "", args=dict(call.args or {}) if call else {},
                                          response=dict(resp.response or {})))
    return RequestView(
        message=latest_user_text(llm_request),
        results=results,
        memories=_memories_before(contents, start),
        tools=frozenset(llm_request.tools_dict) | frozenset(_declared_tools(llm_request)),
    )


def _declared_tools(llm_request: LlmRequest) -> list[str]:
    """Names of the function declarations (a request built without ADK has no tools_dict)."""
    return [d.name for tool in (llm_request.config.tools or []) if isinstance(tool, types.Tool)
            for d in tool.function_declarations or [] if d.name]


_PIECES = re.compile(r"\w+|[^\w\s]")


def approx_tokens(text: str) -> int:
    """Token estimate for budgets: the larger of word/punctuation pieces and characters / 4.

    Real sub-word tokenisers give about 1.3 tokens per English word and about 4 characters per
    token; taking the larger of the two errs towards over-counting, which keeps budgets safe.
    """
    return max(len(_PIECES.findall(text)), math.ceil(len(text) / 4))


def _content_text(content: types.Content) -> str:
    chunks: list[str] = []
    for part in content.parts or []:
        if part.text:
            chunks.append(part.text)
        elif part.function_call:
            chunks.append(json.dumps({"call": part.function_call.name, "args": part.function_call.args},
                                     default=str))
        elif part.function_response:
            chunks.append(json.dumps(part.function_response.response, default=str))
    return "\n".join(chunks)


def model_response(llm_request: LlmRequest, parts: list[types.Part], decision: dict[str, Any]) -> LlmResponse:
    """A finished offline answer with approximate usage and the decision for the run log."""
    declarations = [d.model_dump_json(exclude_none=True)
                    for tool in (llm_request.config.tools or []) if isinstance(tool, types.Tool)
                    for d in tool.function_declarations or []]
    prompt = "\n".join([system_text(llm_request), *declarations,
                        *(_content_text(c) for c in llm_request.contents)])
    content = types.Content(role="model", parts=parts)
    prompt_tokens = approx_tokens(prompt)
    output_tokens = approx_tokens(_content_text(content))
    return LlmResponse(
        content=content,
        finish_reason=types.FinishReason.STOP,
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=prompt_tokens,
            candidates_token_count=output_tokens,
            total_token_count=prompt_tokens + output_tokens,
        ),
        custom_metadata={"decision": decision},
    )
