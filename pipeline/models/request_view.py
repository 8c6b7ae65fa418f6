"""What an offline model reads out of an `LlmRequest`: the customer's latest message, the tool
calls and results that followed it in this turn, and the memory block placed just before that
message (`with_memories` writes it there; never into the system instruction).

Only the contents after the latest customer message count: order facts from earlier turns may
be stale, and the support model must answer from this turn's tool results alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.genai import types

from guards.llm.offline_answer import is_customer_message, latest_user_text
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


