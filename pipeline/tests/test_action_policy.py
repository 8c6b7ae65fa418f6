"""Every (status, action) pair of the policy file, against the database, through the real desk.

Allowed pairs end in `needs_confirmation`; refused ones explain why (the policy's own sentence)
and propose nothing — whether the offline model asks or a model calls the write tool anyway.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from db.seed import SEED_FILE
from pipeline.agent.actions import ActionDesk, collecting_proposals
from pipeline.agent.policy import ACTIONS, load_policy
from pipeline.core.settings import Settings
from pipeline.desk import CustomerSession, Desk
from pipeline.events import FinalEvent
from pipeline.tests.fixtures import ShopCustomer
from pipeline.tests.streams import drain
from pipeline.tests.test_confirm import _rows
from toolbox.scope import ToolScope, bound_to

STATUSES: list[str] = yaml.safe_load(SEED_FILE.read_text(encoding="utf-8"))["statuses"]
REQUESTS = {c["kind"]: c for c in yaml.safe_load(
    (Path(__file__).parent / "cases" / "actions.yaml").read_text(encoding="utf-8"))}
#: What a model would send for each kind when it calls the write tool itself.
TOOL_ARGS: dict[str, dict[str, str]] = {
    "delivery_instruction": {"note": "Leave it with the neighbour"},
    "cancel_request": {"items": '["Cast iron skillet 26 cm"]'},
    "return_request": {},
    "exchange_request": {"items": '["Trail running shoes"]', "new_item": "size 44"},
    "address_change": {"new_address": "12 New Street, Springfield"},
}
PAIRS = [(status, action) for action in ACTIONS for status in STATUSES]


def test_the_policy_names_only_the_schemas_statuses_and_every_action() -> None:
    policy = load_policy()
    assert set(policy.actions) == set(ACTIONS) == set(REQUESTS) == set(TOOL_ARGS)
    for rule in policy.actions.values():
        assert set(rule.allowed) <= set(STATUSES)
    assert not policy.allows("cancel_request", "delivered") and not policy.allows("return_request", "processing")


@pytest.mark.parametrize(("status", "action"), PAIRS, ids=[f"{a}-{s.replace(' ', '_')}" for s, a in PAIRS])
async def test_each_status_and_action_pair_proposes_only_what_the_policy_allows(
        desk: Desk, desk_settings: Settings, shop_customer: ShopCustomer, status: str, action: str) -> None:
    policy = load_policy()
    order_id = shop_customer.orders[status]
    message = REQUESTS[action]["message"].format(order=order_id)
    final = (await drain(desk.run_turn(CustomerSession(shop_customer.email), message)))[-1]
    assert isinstance(final, FinalEvent), final
    if policy.allows(action, status):
        assert final.status == "needs_confirmation" and final.pending is not None, final
        assert (final.pending.order_id, final.pending.action) == (order_id, action)
    else:
        assert final.status == "answered" and final.pending is None, final
        assert policy.refusal(action, status) in final.answer, final.answer

    # A model that calls the write tool whatever the status gets the same answer from the desk.
    actions = desk.services.actions
    assert isinstance(actions, ActionDesk)
    args: dict[str, Any] = {"order_id": order_id, "action": action, "note": "", "items": "", "new_item": "",
                            "new_address": "", **TOOL_ARGS[action]}
    with bound_to(ToolScope(shop_customer.email, uuid.uuid4().hex)), collecting_proposals() as proposals:
        result = await actions.propose(args)
    row = result["rows"][0]
    assert bool(row.get("proposed")) is policy.allows(action, status), row
    assert len(proposals) == int(policy.allows(action, status))
    if not policy.allows(action, status):
        assert row["reason"] == policy.refusal(action, status)
    assert await _rows(desk_settings, shop_customer.email) == []
