"""Customer-facing sentences of the offline support model, built only from tool rows.

Every order fact in an answer is a field of a row the tools returned in this turn; nothing is
remembered or invented. Field names follow the desk's order row contract.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

Row = dict[str, Any]

CAPABILITIES = ("check an order's status or where your parcel is, list your orders, and — once you confirm — "
                "record a delivery instruction, a return, cancel or exchange request (for a whole order or some "
                "of its items) or a new delivery address for one of your orders")

_STATUS = {
    "processing": "is being prepared and has not shipped yet",
    "shipped": "has shipped and is on its way",
    "out for delivery": "is out for delivery",
    "delivered": "has been delivered",
    "returned": "has been returned",
    "cancelled": "was cancelled",
}
#: Statuses for which a standing delivery note still matters to the customer.
IN_TRANSIT = frozenset({"processing", "shipped", "out for delivery"})
_ACTION_NAMES = {
    "delivery_instruction": "delivery instruction",
    "return_request": "return request",
    "cancel_request": "cancel request",
    "exchange_request": "exchange request",
    "address_change": "change of delivery address",
}
#: How a customer could ask for each, quoted in the policy answer. The example id is no real
#: order: an answer that names a real one would name another customer's order.
_EXAMPLE_ORDER = "ORD-12345"
_EXAMPLES = {
    "delivery_instruction": f"leave {_EXAMPLE_ORDER} with my neighbour",
    "return_request": f"return {_EXAMPLE_ORDER}",
    "cancel_request": f"cancel {_EXAMPLE_ORDER}",
    "exchange_request": f"exchange the shoes from {_EXAMPLE_ORDER} for size 44",
    "address_change": f"change the address of {_EXAMPLE_ORDER} to 12 New Street, Springfield",
}


def _date(value: Any) -> str:
    try:
        return datetime.fromisoformat(str(value)).date().isoformat()
    except ValueError:
        return str(value)


def _amount(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else str(value)


def _items(row: Row) -> str:
    items = [i for i in row.get("items") or [] if isinstance(i, dict)]
    return ", ".join(f"{i.get('qty', 1)} × {i.get('name', 'item')}" for i in items) or "no items listed"


def order_status(row: Row, *, where: bool, delivery_notes: Sequence[str]) -> str:
    """One order's status; `where` adds the delivery address (the customer asked where it is)."""
    status = str(row.get("status", ""))
    text = (f"Order {row.get('order_id')} {_STATUS.get(status, f'has the status “{status}”')}. "
            f"It was placed on {_date(row.get('order_date'))}: {_items(row)} "
            f"(total {_amount(row.get('total_amount'))}).")
    if where and status in IN_TRANSIT | {"delivered"}:
        text += f" Delivery address: {row.get('delivery_address')}."
    if status in IN_TRANSIT and delivery_notes:
        text += f" Your standing delivery note: “{delivery_notes[0]}”."
    return text


def not_on_account(order_id: str) -> str:
    return (f"I couldn't find order {order_id} on your account. "
            "Please check the order number; I can only look at your own orders.")


def no_orders() -> str:
    return "I couldn't find any orders on your account."


def order_list(rows: Sequence[Row]) -> str:
    lines = [f"- {r.get('order_id')}: {r.get('status')}, placed {_date(r.get('order_date'))}, "
             f"total {_amount(r.get('total_amount'))}" for r in rows]
    noun = "order" if len(rows) == 1 else "orders"
    return f"You have {len(rows)} {noun} with us (newest first):\n" + "\n".join(lines)


def latest_hint(total: int) -> str:
    return "" if total <= 1 else f"(This is the newest of your {total} orders.) "


def _what(row: Row) -> str:
    items = row.get("items")
    scope = f"{', '.join(items)} of order {row.get('order_id')}" if items else f"order {row.get('order_id')}"
    if row.get("new_item"):
        return f"{scope}, to become: {row['new_item']}"
    if row.get("new_address"):
        return f"{scope}, new delivery address: {row['new_address']}"
    return scope


def proposal(row: Row, *, others: int = 0) -> str:
    """A write the desk proposed: nothing is recorded until the customer says yes."""
    name = _ACTION_NAMES.get(str(row.get("action")), str(row.get("action")))
    later = f" (One request at a time: ask me again for the other {others} afterwards.)" if others else ""
    return (f"I can record a {name} for {_what(row)}. Nothing is recorded yet: reply “yes” to record it, "
            f"or “no” to leave it.{later}")


def not_allowed(action: str, order_id: str, reason: str) -> str:
    return f"I can't record a {_ACTION_NAMES.get(action, action)} for order {order_id}: {reason} Nothing was recorded."


def policy(action: str, allowed: Sequence[str]) -> str:
    """The answer to "could I …?": what the policy allows. Proposes nothing."""
    name = _ACTION_NAMES.get(action, action)
    when = " or ".join(f"“{s}”" for s in allowed) or "no status"
    return (f"A {name} is possible for orders that are {when}. Nothing has been recorded. If you would like one, "
            f"just ask, for example: “{_EXAMPLES.get(action, action)}”.")


def ask_item(action: str, row: Row) -> str:
    return (f"Which item of order {row.get('order_id')} is the {_ACTION_NAMES.get(action, action)} for? "
            f"It has: {_items(row)}.")


def ask_new_item(item: str) -> str:
    return f"What should the {item} be exchanged for (for example another size or colour)?"


def ask_new_address(order_id: str) -> str:
    return f"What is the new delivery address for order {order_id}? Please write it in full, with the house number."


def ask_order_id(action: str) -> str:
    return (f"Which order is the {_ACTION_NAMES.get(action, action)} for? "
            f"Please tell me the order number (for example {_EXAMPLE_ORDER}).")


def greeting() -> str:
    return f"Hello! I can {CAPABILITIES}. How can I help?"


def thanks() -> str:
    return "You're welcome! Is there anything else I can help you with?"


def only_your_orders() -> str:
    return "I can only see the orders of the account you're signed in with, never anyone else's."


def unsupported() -> str:
    return f"Sorry, I can't help with that here. I can {CAPABILITIES}."
