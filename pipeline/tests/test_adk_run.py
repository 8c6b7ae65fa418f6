"""A desk turn's ADK runs build no message content for telemetry (`pipeline/core/adk_run.py`):
the scrubber drops every prompt from a span anyway, so converting one is CPU for nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from google.adk.telemetry import _experimental_semconv, tracing

from pipeline.desk import CustomerSession, Desk
from pipeline.events import FinalEvent, StepEvent
from pipeline.tests.fixtures import ShopCustomer
from pipeline.tests.streams import drain

#: Content builders of ADK's two span conventions (experimental operation details, legacy request JSON).
BUILDERS = [(_experimental_semconv, "_build_request_operation_details"), (tracing, "_build_llm_request_for_trace")]


def recorder(built: list[str], name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def recording(*args: Any) -> Any:
        built.append(name)
        return real(*args)
    return recording


async def test_a_turn_converts_no_prompt_for_telemetry(desk: Desk, shop_customer: ShopCustomer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    for module, name in BUILDERS:
        monkeypatch.setattr(module, name, recorder(built, name, getattr(module, name)))
    message = "I moved house last week, could you tell me which address the parcel for my newest order is going to?"
    events = await drain(desk.run_turn(CustomerSession(shop_customer.email), message))
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.status == "answered", final
    steps = {e.name: e for e in events if isinstance(e, StepEvent) and e.status != "started"}
    assert steps["guardrail"].detail["rules"][0].startswith("model:"), "the Guardrail's ADK runner ran"
    assert steps["agent"].detail["tool_calls"] >= 1, "the agent's ADK runner called a model twice"
    assert built == []
