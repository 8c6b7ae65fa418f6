"""The offline support model's next step: which tools to call, or the answer once results are in.

Pure function of (intent, this turn's view, standing delivery notes). Multi-step turns fall out
of re-planning after every tool result: "status of my latest order" first lists the orders, then
asks for the newest one's status, then answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.models import answers
from pipeline.models.extract import extract_note, find_order_ids, mentions_latest
from pipeline.models.intents import Intent
from pipeline.models.turn import TurnView

FIND = "find-customer-orders"
STATUS = "get-order-status"
ACTION = "action-log"
_ACTIONS: dict[Intent, str] = {
    "delivery_instruction": "delivery_instruction",
    "return_request": "return_request",
    "cancel_request": "cancel_request",
}


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """Either tool calls to make now, or the final answer (never both)."""

    calls: tuple[Call, ...] = ()
    answer: str = ""


def _newest(view: TurnView) -> list[str] | Step:
    """The customer's newest order, once the order list is in (a Step until then, or if empty)."""
    found = view.find(FIND)
    if found is None:
        return Step(calls=(Call(FIND),))
    if not found.rows:
        return Step(answer=answers.no_orders())
    return [str(found.rows[0].get("order_id"))]


def _status(intent: Intent, view: TurnView, delivery_notes: Sequence[str]) -> Step:
    # A look-up without an order number is about the newest order.
    targets = find_order_ids(view.message, bare_numbers=True) or _newest(view)
    if isinstance(targets, Step):
        return targets
    pending = [i for i in targets if view.find(STATUS, order_id=i) is None]
    if pending:
        return Step(calls=tuple(Call(STATUS, {"order_id": i}) for i in pending))
    texts = []
    for order_id in targets:
        result = view.find(STATUS, order_id=order_id)
        rows = result.rows if result else []
        texts.append(answers.order_status(rows[0], where=intent == "where_is_parcel",
                                          delivery_notes=delivery_notes)
                     if rows else answers.not_on_account(order_id))
    found = view.find(FIND)
    # The list was only fetched because no order was named: say which one this is.
    prefix = answers.latest_hint(len(found.rows)) if found else ""
    return Step(answer=prefix + " ".join(texts))


def _action(action: str, view: TurnView) -> Step:
    # Delivery notes hold house numbers and postcodes: there, only a cued number is an order.
    ids = find_order_ids(view.message, bare_numbers=action != "delivery_instruction")
    # An action is only taken on the newest order when the customer says so ("my last order").
    if not ids and not mentions_latest(view.message):
        return Step(answer=answers.ask_order_id(action))
    targets = ids or _newest(view)
    if isinstance(targets, Step):
        return targets
    note = extract_note(view.message)
    pending = [i for i in targets if view.find(ACTION, order_id=i, action=action) is None]
    if pending:
        return Step(calls=tuple(Call(ACTION, {"order_id": i, "action": action, "note": note})
                                for i in pending))
    texts = []
    for order_id in targets:
        result = view.find(ACTION, order_id=order_id, action=action)
        rows = result.rows if result else []
        texts.append(answers.action_recorded(action, order_id, note,
                                             newly=bool(rows[0].get("newly_recorded")))
                     if rows else answers.not_on_account(order_id))
    return Step(answer=" ".join(texts))


def next_step(intent: Intent, view: TurnView, delivery_notes: Sequence[str]) -> Step:
    if intent in ("order_status", "where_is_parcel"):
        return _status(intent, view, delivery_notes)
    if intent == "list_orders":
        found = view.find(FIND)
        if found is None:
            return Step(calls=(Call(FIND),))
        return Step(answer=answers.order_list(found.rows) if found.rows else answers.no_orders())
    if intent in _ACTIONS:
        return _action(_ACTIONS[intent], view)
    if intent == "greeting":
        return Step(answer=answers.greeting())
    if intent == "thanks":
        return Step(answer=answers.thanks())
    return Step(answer=answers.unsupported())
