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
