"""Customer-facing sentences of the offline support model, built only from tool rows.

Every order fact in an answer is a field of a row the tools returned in this turn; nothing is
remembered or invented. Field names follow the desk's order row contract.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

Row = dict[str, Any]

CAPABILITIES = ("check an order's status or where your parcel is, list your orders, and record a "
                "delivery instruction, a return request or a cancel request for one of your orders")

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


def action_recorded(action: str, order_id: str, note: str, *, newly: bool) -> str:
    name = _ACTION_NAMES.get(action, action)
    quoted = f": “{note}”" if note and action == "delivery_instruction" else ""
    if not newly:
        # The recorded one may be worded differently (the key ignores the note): don't quote ours.
        return (f"A {name} for order {order_id} was already recorded today, so nothing new was added. "
                "If it needs changing, please tell our team.")
    return (f"I've recorded your {name} for order {order_id}{quoted}. "
            "Our team will take it from here.")


def ask_order_id(action: str) -> str:
    return (f"Which order is the {_ACTION_NAMES.get(action, action)} for? "
            "Please tell me the order number (for example ORD-10042).")


def greeting() -> str:
    return f"Hello! I can {CAPABILITIES}. How can I help?"


def thanks() -> str:
    return "You're welcome! Is there anything else I can help you with?"


def unsupported() -> str:
    return f"Sorry, I can't help with that here. I can {CAPABILITIES}."
