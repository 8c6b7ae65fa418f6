"""The offline support model's next step: which tools to call, or the answer once results are in.

Pure function of (intent, this turn's view, standing delivery notes). Multi-step turns fall out
of re-planning after every tool result: "status of my latest order" first lists the orders, then
asks for the newest one's status, then answers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.agent.policy import load_policy
from pipeline.models import answers
from pipeline.models.extract import extract_note, find_order_ids, mentions_latest
from pipeline.models.intents import Intent
from pipeline.models.others import names_someone_else
from pipeline.models.request_view import RequestView
from pipeline.models.wording import is_hypothetical, named_items, new_address_of, new_item_of

FIND = "find-customer-orders"
STATUS = "get-order-status"
ACTION = "action-log"
_ACTIONS: dict[Intent, str] = {
    "delivery_instruction": "delivery_instruction",
    "return_request": "return_request",
    "cancel_request": "cancel_request",
    "exchange_request": "exchange_request",
    "address_change": "address_change",
}
#: Where a bare number is far more often a house number or postcode than an order.
_ADDRESS_TEXTS = frozenset({"delivery_instruction", "address_change"})


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """Either tool calls to make now, or the final answer (never both)."""

    calls: tuple[Call, ...] = ()
    answer: str = ""


def _newest(view: RequestView) -> list[str] | Step:
    """The customer's newest order, once the order list is in (a Step until then, or if empty)."""
    found = view.find(FIND)
    if found is None:
        return Step(calls=(Call(FIND),))
    if not found.rows:
        return Step(answer=answers.no_orders())
    return [str(found.rows[0].get("order_id"))]


def _status(intent: Intent, view: RequestView, delivery_notes: Sequence[str]) -> Step:
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


def _details(action: str, message: str, row: dict[str, Any]) -> dict[str, str] | Step:
    """The write's arguments beyond the order, or the question for what is missing."""
    names = [str(i.get("name")) for i in row.get("items") or [] if isinstance(i, dict)]
    items = named_items(message, names)
    if action != "exchange_request" and set(items) == set(names):
        items = []  # every item named is the whole order
    args = {"note": extract_note(message), "items": json.dumps(items) if items else "", "new_item": "",
            "new_address": ""}
    if action == "exchange_request":
        if not items:
            return Step(answer=answers.ask_item(action, row))
        args["new_item"] = new_item_of(message)
        if not args["new_item"]:
            return Step(answer=answers.ask_new_item(items[0]))
    if action == "address_change":
        args["items"] = ""
        args["new_address"] = new_address_of(message)
        if not args["new_address"]:
            return Step(answer=answers.ask_new_address(str(row.get("order_id"))))
    return args


def _action(action: str, view: RequestView) -> Step:
    if is_hypothetical(view.message):  # "could I return it if …?": explain, propose nothing
        return Step(answer=answers.policy(action, load_policy().allowed_statuses(action)))
    ids = find_order_ids(view.message, bare_numbers=action not in _ADDRESS_TEXTS)
    # An action is only taken on the newest order when the customer says so ("my last order").
    if not ids and not mentions_latest(view.message):
        return Step(answer=answers.ask_order_id(action))
    targets = ids or _newest(view)
    if isinstance(targets, Step):
        return targets
    order_id = targets[0]  # one request at a time: each needs its own yes
    looked_up = view.find(STATUS, order_id=order_id)
    if looked_up is None:
        return Step(calls=(Call(STATUS, {"order_id": order_id}),))
    if not looked_up.rows:
        return Step(answer=answers.not_on_account(order_id))
    row = looked_up.rows[0]
    policy = load_policy()
    if not policy.allows(action, str(row.get("status"))):
        return Step(answer=answers.not_allowed(action, order_id, policy.refusal(action, str(row.get("status")))))
    details = _details(action, view.message, row)
    if isinstance(details, Step):
        return details
    proposed = view.find(ACTION, order_id=order_id, action=action)
    if proposed is None:
        return Step(calls=(Call(ACTION, {"order_id": order_id, "action": action, **details}),))
    if not proposed.rows:
        return Step(answer=answers.not_on_account(order_id))
    result = proposed.rows[0]
    if not result.get("proposed"):
        return Step(answer=answers.not_allowed(action, order_id, str(result.get("reason"))))
    return Step(answer=answers.proposal(result, others=len(targets) - 1))


def next_step(intent: Intent, view: RequestView, delivery_notes: Sequence[str]) -> Step:
    step = _orders_step(intent, view, delivery_notes)
    if step is None:
        return _social_step(intent)
    # Whatever the customer asked about someone else, what follows is their own account's.
    if step.answer and names_someone_else(view.message):
        return Step(answer=f"{answers.only_your_orders()} {step.answer}")
    return step


def _orders_step(intent: Intent, view: RequestView, delivery_notes: Sequence[str]) -> Step | None:
    if intent in ("order_status", "where_is_parcel"):
        return _status(intent, view, delivery_notes)
    if intent == "list_orders":
        found = view.find(FIND)
        if found is None:
            return Step(calls=(Call(FIND),))
        return Step(answer=answers.order_list(found.rows) if found.rows else answers.no_orders())
    if intent in _ACTIONS:
        return _action(_ACTIONS[intent], view)
    return None


def _social_step(intent: Intent) -> Step:
    if intent == "greeting":
        return Step(answer=answers.greeting())
    if intent == "thanks":
        return Step(answer=answers.thanks())
    return Step(answer=answers.unsupported())
