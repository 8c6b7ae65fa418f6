"""Order isolation through the real Toolbox binary: the session's email decides, not the caller."""

from __future__ import annotations

import itertools

import pytest
import yaml

from db.connect import connection
from db.seed import SEED_FILE
from pipeline.core.errors import ToolResultError
from pipeline.core.settings import Settings
from toolbox.client import ToolboxGateway
from toolbox.scope import ToolScope, bound_to, idempotency_key

CUSTOMERS = [c["email"] for c in yaml.safe_load(SEED_FILE.read_text())["customers"]]
PAIRS = list(itertools.permutations(CUSTOMERS[:3], 2))
#: The write tool's detail parameters for a request about a whole order (db/migrations/0005).
WHOLE_ORDER = {"items": "", "new_item": "", "new_address": ""}


async def _orders_of(settings: Settings, email: str) -> list[str]:
    async with connection(settings) as conn:
        rows = await conn.fetch(
            "SELECT order_id FROM customer_orders WHERE customer_email = $1 ORDER BY order_date DESC", email)
    return [r[0] for r in rows]


@pytest.mark.parametrize(("owner", "other"), PAIRS)
async def test_other_customer_cannot_read_an_order(desk_settings: Settings, gateway: ToolboxGateway,
                                                   owner: str, other: str) -> None:
    for order_id in await _orders_of(desk_settings, owner):
        with bound_to(ToolScope(other, "turn-isolation")):
            assert (await gateway.call("get-order-status", order_id=order_id)).rows == []
        with bound_to(ToolScope(owner, "turn-isolation")):
            assert (await gateway.call("get-order-status", order_id=order_id)).rows[0]["order_id"] == order_id


@pytest.mark.parametrize("customer", CUSTOMERS)
async def test_find_orders_returns_exactly_the_bound_customers_orders(
        desk_settings: Settings, gateway: ToolboxGateway, customer: str) -> None:
    with bound_to(ToolScope(customer, "turn-list")):
        result = await gateway.call("find-customer-orders")
    assert [row["order_id"] for row in result.rows] == await _orders_of(desk_settings, customer)


@pytest.mark.parametrize(("owner", "other"), PAIRS)
async def test_action_log_on_another_customers_order_inserts_nothing(
        desk_settings: Settings, gateway: ToolboxGateway, owner: str, other: str) -> None:
    order_id = (await _orders_of(desk_settings, owner))[0]
    async with connection(desk_settings) as conn:
        before = await conn.fetchval("SELECT count(*) FROM actions_log")
    with bound_to(ToolScope(other, "turn-write")), idempotency_key(f"isolation-{owner}-{other}"):
        result = await gateway.call("action-log", order_id=order_id, action="cancel_request", note="cancel it",
                                    **WHOLE_ORDER)
    assert result.rows == []
    async with connection(desk_settings) as conn:
        assert await conn.fetchval("SELECT count(*) FROM actions_log") == before


async def test_action_log_lands_once_per_idempotency_key(desk_settings: Settings, gateway: ToolboxGateway) -> None:
    customer = CUSTOMERS[3]
    order_id = (await _orders_of(desk_settings, customer))[0]
    with bound_to(ToolScope(customer, "turn-retry")), idempotency_key("retry-key-0000000001"):
        first = await gateway.call("action-log", order_id=order_id, action="delivery_instruction",
                                   note="leave it with the neighbour at number 12", **WHOLE_ORDER)
        second = await gateway.call("action-log", order_id=order_id, action="delivery_instruction",
                                    note="leave it with the neighbour at number 12", **WHOLE_ORDER)
    assert first.rows[0]["newly_recorded"] is True and second.rows[0]["newly_recorded"] is False
    async with connection(desk_settings) as conn:
        assert await conn.fetchval(
            "SELECT count(*) FROM actions_log WHERE idempotency_key = 'retry-key-0000000001'") == 1


@pytest.mark.parametrize("tool", ["get-order-status", "find-customer-orders", "action-log"])
async def test_customer_email_is_not_model_visible_and_cannot_be_passed(gateway: ToolboxGateway, tool: str) -> None:
    assert "customer_email" not in {p.name for p in gateway.model_params(tool)}
    assert "idempotency_key" not in {p.name for p in gateway.model_params(tool)}
    with bound_to(ToolScope(CUSTOMERS[0], "turn-spoof")), pytest.raises(TypeError):
        await gateway.call(tool, customer_email=CUSTOMERS[1])


@pytest.mark.parametrize(("action", "details", "lands"), [
    ("exchange_request", {"items": '["a"]', "new_item": "size 44"}, True),
    ("return_request", {"items": '["a", "b"]'}, True),
    ("exchange_request", {"new_item": "size 44"}, False),  # which item?
    ("exchange_request", {"items": '["a"]'}, False),  # becoming what?
    ("address_change", {"items": '["a"]', "new_address": "1 New Road"}, False),  # an address is for the order
    ("address_change", {}, False),
    ("delivery_instruction", {"new_address": "1 New Road"}, False),
    ("cancel_request", {"items": "[]"}, False),
], ids=["exchange", "partial-return", "exchange-no-item", "exchange-no-new-item", "address-with-items",
        "address-without-address", "instruction-with-address", "empty-items"])
async def test_the_database_refuses_a_request_of_the_wrong_shape(desk_settings: Settings, gateway: ToolboxGateway,
                                                                 action: str, details: dict[str, str],
                                                                 lands: bool) -> None:
    customer = CUSTOMERS[4]
    order_id = (await _orders_of(desk_settings, customer))[1]
    key = f"shape-{action}-{sorted(details.items())}"[:120]
    with bound_to(ToolScope(customer, "turn-shape")), idempotency_key(key.ljust(16, "-")):
        args = {"order_id": order_id, "action": action, "note": "", **WHOLE_ORDER, **details}
        if lands:
            assert (await gateway.call("action-log", **args)).rows[0]["newly_recorded"] is True
        else:
            with pytest.raises(ToolResultError):
                await gateway.call("action-log", **args)
    async with connection(desk_settings) as conn:
        row = await conn.fetchrow("SELECT items, payload FROM actions_log WHERE idempotency_key = $1",
                                  key.ljust(16, "-"))
        await conn.execute("DELETE FROM actions_log WHERE idempotency_key = $1", key.ljust(16, "-"))
    assert (row is not None) is lands
