"""Offline usage: remembering a model's fixed prompt part must not change a single token count."""

from __future__ import annotations

import pytest
from google.adk.models.llm_request import LlmRequest
from google.genai import types

from guards.llm.offline_answer import PromptMeter, _content_text, approx_tokens, system_text

ORDER_ID = {"type": "object", "properties": {"order_id": {"type": "string"}}}
TOOL = types.Tool(function_declarations=[
    types.FunctionDeclaration(name="get-order-status", description="Status of one of the customer's orders.",
                              parameters_json_schema=ORDER_ID),
    types.FunctionDeclaration(name="find-customer-orders", description="The customer's orders, newest first."),
])


def request(instruction: str, *turns: str, tools: bool = True) -> LlmRequest:
    contents = [types.Content(role="user" if i % 2 == 0 else "model", parts=[types.Part(text=t)])
                for i, t in enumerate(turns)]
    return LlmRequest(contents=contents, config=types.GenerateContentConfig(
        system_instruction=instruction, tools=[TOOL] if tools else None))


def joined_prompt(llm_request: LlmRequest) -> str:
    """The prompt as one text: instruction, tool declarations, then every content, one per line."""
    declarations = [d.model_dump_json(exclude_none=True) for d in TOOL.function_declarations or []
                    ] if llm_request.config.tools else []
    return "\n".join([system_text(llm_request), *declarations, *(_content_text(c) for c in llm_request.contents)])


CALLS = [
    request("You help shop customers.", "Where is ORD-10042?"),
    request("You help shop customers.", "Where is ORD-10042?", "It shipped.", "¿Y el pedido ORD-10043?"),
    request("You help shop customers.", "Where is ORD-10042?", "It shipped.", "¿Y el pedido ORD-10043?",
            "Está en camino.", "x" * 4000),  # characters, not word pieces, decide this one
    request("An instruction that changed: " + "{[(;)]} " * 200, "hi"),
    request("You help shop customers.", "Where is ORD-10042?"),  # the first instruction again
    request("You help shop customers."),  # no conversation at all
    request("", "only a message", tools=False),
    request("", "x" * 4000, tools=False),  # 4,001 characters with the newline after the instruction
]


@pytest.mark.parametrize("order", [CALLS, CALLS[::-1]], ids=["forwards", "backwards"])
def test_a_remembered_instruction_counts_exactly_as_the_whole_prompt(order: list[LlmRequest]) -> None:
    meter = PromptMeter()
    assert [meter.prompt_tokens(r) for r in order] == [approx_tokens(joined_prompt(r)) for r in order]
