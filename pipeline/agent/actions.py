"""Write requests are proposed, never written, until the customer confirms (issue 15).

`propose` is what the model's `action-log` call does: it checks the order (the customer's own,
through the Toolbox), the action policy for its status and the items named, and returns either a
refusal with the policy's reason or the proposal, which it also keeps for the turn
(`collecting_proposals`) so the turn can end with `needs_confirmation` and a signed token
(`pipeline.pending`). `record` runs only for a token the desk signed and verified: it checks the
policy again (the status may have moved on since) and writes through the same Toolbox tool, with
the idempotency key of `derive_idempotency_key`, so confirming twice lands one row.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from pipeline.agent.policy import PARTIAL_ACTIONS, ActionPolicy, load_policy
from pipeline.core.errors import ToolboxError
from pipeline.pending import ProposedAction
from toolbox.client import ToolboxGateway
from toolbox.results import ToolResult
from toolbox.scope import bound_to, current_scope, idempotency_key, observed_call

WRITE_TOOL = "action-log"
WRITE_UNKNOWN = ("We could not confirm whether your request was recorded. If you confirm it again today, it is "
                 "recorded at most once: if it already was, we will tell you so.")
STATUS_TOOL = "get-order-status"
_proposals: ContextVar[list[ProposedAction] | None] = ContextVar("turn_proposals", default=None)


@contextmanager
def collecting_proposals() -> Iterator[list[ProposedAction]]:
    """The proposals this turn's write calls make (at most one: see `propose`)."""
    found: list[ProposedAction] = []
    token = _proposals.set(found)
    try:
        yield found
    finally:
        _proposals.reset(token)


def derive_idempotency_key(email: str, tool: str, args: dict[str, Any], *, now: datetime | None = None) -> str:
    """One key per customer, order, action (and items, when only some) and UTC day; the note and
    the model's wording do not take part (see `pipeline.agent.tools`)."""
    day = (now or datetime.now(UTC)).astimezone(UTC).date().isoformat()
    order_id = str(args.get("order_id", "")).strip().upper()
    action = str(args.get("action", "")).strip().lower()
    parts = ["v2", tool, email.strip().casefold(), order_id, action, day]
    if args.get("items"):  # a return of one item and, later that day, of another are two requests
        parts.append(str(args["items"]))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:48]


def _item_names(row: dict[str, Any]) -> list[str]:
    return [str(i.get("name")) for i in row.get("items") or [] if isinstance(i, dict) and i.get("name")]


def _parse_items(value: Any) -> list[str] | None:
    """The model's `items`: a JSON array of names, or a ';'-separated list; empty means the whole order."""
    if value in (None, "", "[]"):
        return None
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()] or None
    text = str(value).strip()
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        parsed = text.split(";")
    names = parsed if isinstance(parsed, list) else [parsed]
    return [str(v).strip() for v in names if str(v).strip()] or None


def _refused(order_id: str, action: str, status: str, reason: str) -> dict[str, Any]:
    return ToolResult(rows=[{"order_id": order_id, "action": action, "status": status, "allowed": False,
                             "reason": reason}]).for_model()


class ActionDesk:
    def __init__(self, gateway: ToolboxGateway, policy: ActionPolicy | None = None) -> None:
        self._gateway = gateway
        self.policy = policy or load_policy()

    async def _order(self, order_id: str) -> dict[str, Any] | None:
        # Part of the one write call the model made: not a tool call of its own for the budget's
        # loop detection (the model may well have looked the order up just before).
        with bound_to(dataclasses.replace(current_scope(), observer=None)):
            rows = (await self._gateway.call(STATUS_TOOL, order_id=order_id)).rows
        return rows[0] if rows else None

    def _check(self, proposal: ProposedAction, row: dict[str, Any]) -> str | None:
        """Why this proposal cannot be recorded for this order, or None."""
        status = str(row.get("status", ""))
        if not self.policy.allows(proposal.action, status):
            return self.policy.refusal(proposal.action, status)
        names = _item_names(row)
        unknown = [i for i in proposal.items or () if i not in names]
        if unknown:
            return f"The order has no item called {', '.join(unknown)}; its items are: {'; '.join(names)}."
        if proposal.action == "exchange_request" and not (proposal.items and proposal.new_item):
            return f"An exchange needs the item and what it should become; the order's items are: {'; '.join(names)}."
        if proposal.action == "address_change" and not proposal.new_address:
            return "An address change needs the new delivery address."
        return None

    async def propose(self, args: dict[str, Any]) -> dict[str, Any]:
        """The model's write call: a proposal to confirm, or why not. Writes nothing.

        Observed like any tool call (budget, loop detection, the turn's `tool` event), so a turn
        shows that the model asked to write and what came of it.
        """
        with observed_call(WRITE_TOOL, args) as call:
            result = await self._propose(args)
            call.row_count = result["row_count"]
        return result

    async def _propose(self, args: dict[str, Any]) -> dict[str, Any]:
        order_id = str(args.get("order_id", "")).strip().upper()
        action = str(args.get("action", "")).strip().lower()
        row = await self._order(order_id)
        if row is None:
            return ToolResult(rows=[]).for_model()
        status = str(row.get("status", ""))
        items = _parse_items(args.get("items"))
        names = _item_names(row)
        if items is not None:
            # Matched to the order's own spelling, case-insensitively.
            by_fold = {n.casefold(): n for n in names}
            items = sorted({by_fold.get(i.casefold(), i) for i in items})
            # Naming every item of a return or cancel is the whole order; other kinds take no items.
            whole = action != "exchange_request" and set(items) == set(names)
            if action not in PARTIAL_ACTIONS or whole:
                items = None
        try:
            proposal = ProposedAction(order_id=order_id, action=action, note=str(args.get("note") or "")[:300],  # type: ignore[arg-type]
                                      items=tuple(items) if items else None,
                                      new_item=str(args.get("new_item") or "").strip(),
                                      new_address=str(args.get("new_address") or "").strip())
        except ValidationError:
            return _refused(order_id, action, status, "That is not a request this desk can record.")
        reason = self._check(proposal, row)
        if reason is not None:
            return _refused(order_id, action, status, reason)
        collected = _proposals.get()
        if collected is None:
            raise RuntimeError("a write was proposed outside a turn")
        # A reworded note for the same order, action and items is the same request: the first
        # wording stands (as for the write's idempotency key). Anything else waits its turn.
        same = [p for p in collected if (p.order_id, p.action, p.items) == (order_id, proposal.action, proposal.items)]
        if collected and not same:
            return _refused(order_id, action, status, "One request at a time: the customer must confirm the first.")
        proposal = same[0] if same else proposal
        if not collected:
            collected.append(proposal)
        shown = proposal.model_dump(exclude={"note"}, exclude_defaults=True)
        return ToolResult(rows=[{**shown, "status": status, "proposed": True, "needs_confirmation": True}]).for_model()

    async def record(self, proposal: ProposedAction, *, proposed_at: datetime) -> dict[str, Any]:
        """Write a confirmed proposal: the row's `newly_recorded`, or `allowed: False` and why not.

        The idempotency day is the day it was proposed (`proposed_at`, from the signed token), so
        confirming one token twice lands once even across midnight UTC."""
        row = await self._order(proposal.order_id)
        if row is None:
            return {"order_id": proposal.order_id, "allowed": False, "reason": "not on this account"}
        reason = self._check(proposal, row)
        if reason is not None:
            return {"order_id": proposal.order_id, "allowed": False, "reason": reason}
        args = {"order_id": proposal.order_id, "action": proposal.action, "note": proposal.note,
                "items": json.dumps(list(proposal.items)) if proposal.items else "",
                "new_item": proposal.new_item, "new_address": proposal.new_address}
        key = derive_idempotency_key(current_scope().customer_email, WRITE_TOOL, args, now=proposed_at)
        try:
            with idempotency_key(key):
                rows = (await self._gateway.call(WRITE_TOOL, **args)).rows
        except ToolboxError as exc:
            raise type(exc)(exc.detail, user_message=WRITE_UNKNOWN) from exc
        return rows[0] if rows else {"order_id": proposal.order_id, "allowed": False, "reason": "not on this account"}
