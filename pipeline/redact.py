"""What a customer sees of each event: the one place that decides it.

The pipeline records every event in full — verdict scores, rule and exemplar ids, recalled memory
texts, the model's tool notes, exception class names — for the run log and the operators.
A customer's stream (`/api/chat`, `supportdesk chat`) carries `for_customer(event)` instead: the
same event type with only what helps a customer and cannot help an attacker tune a message
against the guards. Everything here is an allow-list, so a new detail stays internal until
someone decides to show it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pipeline.events import FinalEvent, StepEvent, StepName, ToolEvent, _Event

E = TypeVar("E", bound=_Event)

#: Steps whose block reason is the desk's own words, written for the customer (the sanitizer says
#: what was wrong with the text). The Judge's and the Guardrail's reasons name rules, exemplars
#: and scores: they stay in the run log, and a blocked turn's `final` says only which check it was.
PUBLIC_BLOCK_REASONS: frozenset[StepName] = frozenset({"sanitizer"})
GUARD_REASONS: dict[StepName, str] = {
    "judge": "Our security check stopped this message.",
    "guardrail": "This desk only handles questions about your orders with us.",
}
#: Tool arguments a customer may see again: the ids and kinds they asked about. Free text the model
#: wrote (the action log's `note`) stays in the run log.
PUBLIC_TOOL_ARGS = frozenset({"order_id", "action"})


def _step_detail(event: StepEvent) -> dict[str, Any]:
    # A skipped step's reason is written by the turn itself ("turn blocked", "no standing preference").
    shown = event.status == "skipped" or (event.status == "blocked" and event.name in PUBLIC_BLOCK_REASONS)
    reason = event.detail.get("reason")
    return {"reason": reason} if shown and isinstance(reason, str) else {}


def for_customer(event: E) -> E:
    """`event` as a customer's stream carries it: the same type (see the module docstring)."""
    if isinstance(event, StepEvent):
        return event.model_copy(update={"detail": _step_detail(event)})
    if isinstance(event, ToolEvent):
        return event.model_copy(update={"args": {k: v for k, v in event.args.items() if k in PUBLIC_TOOL_ARGS}})
    if isinstance(event, FinalEvent) and event.blocked_by is not None and event.blocked_by not in PUBLIC_BLOCK_REASONS:
        return event.model_copy(update={"reason": GUARD_REASONS.get(event.blocked_by)})
    # The turn event, other final events (their reasons are the desk's own) and error events
    # (their message is `user_message`, customer-safe by construction) go out as they are.
    return event
