"""Reading an ADK `LlmRequest` and answering it from code: what every offline model shares.

The offline guard classifiers (`guards/classifier/offline_llm.py`) and the offline support model
(`pipeline/models/`) read the customer's latest message here and answer through `model_response`,
which estimates usage the way a hosted model would report it, so budgets count offline turns too.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types


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


class PromptMeter:
    """`approx_tokens` of a whole request, remembering the part that repeats.

    A model's instruction and tool declarations are the same on every call (~6 KB for the support
    agent, ~1 ms of regex a call here); only the conversation after them is new. Word pieces
    never span the newline that joins the parts, so the count is exactly `approx_tokens` of the
    joined prompt. One entry: an instruction that changed replaces it.
    """

    def __init__(self) -> None:
        self._fixed = ("", 0)

    def prompt_tokens(self, llm_request: LlmRequest) -> int:
        declarations = [d.model_dump_json(exclude_none=True)
                        for tool in (llm_request.config.tools or []) if isinstance(tool, types.Tool)
                        for d in tool.function_declarations or []]
        fixed = "\n".join([system_text(llm_request), *declarations])
        if self._fixed[0] != fixed:
            self._fixed = (fixed, len(_PIECES.findall(fixed)))
        chunks = [_content_text(c) for c in llm_request.contents]
        rest = "\n".join(chunks)
        characters = len(fixed) + (1 + len(rest) if chunks else 0)
        return max(self._fixed[1] + len(_PIECES.findall(rest)), math.ceil(characters / 4))


def model_response(llm_request: LlmRequest, parts: list[types.Part], decision: dict[str, Any],
                   meter: PromptMeter) -> LlmResponse:
    """A finished offline answer with approximate usage and the decision for the run log."""
    content = types.Content(role="model", parts=parts)
    prompt_tokens = meter.prompt_tokens(llm_request)
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
