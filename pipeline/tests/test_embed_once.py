"""One desk turn embeds the customer's message with e5 once: the Guardrail's classifier and the
offline agent's intents (which re-read it after every tool result) share the process's e5."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import pytest

from guards.classifier.embedders import shared_e5
from pipeline.desk import CustomerSession, Desk
from pipeline.events import FinalEvent, StepEvent
from pipeline.tests.fixtures import ShopCustomer
from pipeline.tests.streams import drain

#: (message, what decides it at the Guardrail): one its model reads, one its fast path allows.
MESSAGES = [
    ("I moved house last week, could you tell me which address the parcel for my newest order is going to?",
     "model:"),
    ("Where is my order?", "fast."),
]


@pytest.mark.parametrize(("message", "guardrail_rule"), MESSAGES, ids=["model-read", "fast-path"])
async def test_a_turn_embeds_its_message_once(desk: Desk, shop_customer: ShopCustomer, message: str,
                                              guardrail_rule: str, monkeypatch: pytest.MonkeyPatch) -> None:
    e5 = shared_e5()
    # A fresh memo: earlier tests in this process may have embedded the same words.
    monkeypatch.setattr(e5, "_memo", OrderedDict())
    computed: list[str] = []
    engine = e5._model
    query = engine.query

    def counting(texts: Sequence[str]) -> object:
        computed.extend(texts)
        return query(texts)

    monkeypatch.setattr(engine, "query", counting)
    events = await drain(desk.run_turn(CustomerSession(shop_customer.email), message))
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.status == "answered", final
    steps = {e.name: e for e in events if isinstance(e, StepEvent) and e.status != "started"}
    assert steps["guardrail"].detail["rules"][0].startswith(guardrail_rule)
    assert steps["agent"].detail["tool_calls"] >= 1, "the agent re-planned after a tool result"
    assert computed == [message]
