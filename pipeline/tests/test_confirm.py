"""Nothing is written without the customer's yes (issue 15): the real desk, database and Toolbox."""

from __future__ import annotations

import base64
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from db.connect import connection
from guards.schema import Verdict
from pipeline.core.settings import Settings
from pipeline.desk import CustomerSession, Desk
from pipeline.events import FinalEvent, ToolEvent
from pipeline.guardrail import GuardrailResult
from pipeline.pending import PendingAction
from pipeline.tests.fixtures import ShopCustomer
from pipeline.tests.streams import drain

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "cases" / "actions.yaml").read_text(encoding="utf-8"))
KINDS = [c["kind"] for c in CASES]


async def _rows(settings: Settings, email: str) -> list[dict[str, Any]]:
    async with connection(settings) as conn:
        rows = await conn.fetch("SELECT order_id, action, items, payload FROM actions_log WHERE customer_email = $1",
                                email)
    return [{"order_id": r["order_id"], "action": r["action"], "payload": json.loads(r["payload"]),
             "items": json.loads(r["items"]) if r["items"] is not None else None} for r in rows]


async def _turn(desk: Desk, email: str, text: str, pending: str | None = None) -> FinalEvent:
    events = await drain(desk.run_turn(CustomerSession(email), text, pending))
    final = events[-1]
    assert isinstance(final, FinalEvent), final
    return final


async def _propose(desk: Desk, settings: Settings, shop: ShopCustomer, case: dict[str, Any]) -> FinalEvent:
    order_id = shop.orders[case["status"]]
    proposed = await _turn(desk, shop.email, case["message"].format(order=order_id))
    assert proposed.status == "needs_confirmation", proposed
    assert proposed.pending is not None and proposed.pending.order_id == order_id
    assert proposed.pending.action == case["kind"]
    # A new address is PII like any other: the card and the answer show it masked.
    new_address = case["row"].get("payload", {}).get("new_address")
    if new_address:
        assert new_address not in proposed.pending.summary and new_address not in proposed.answer, proposed
    assert await _rows(settings, shop.email) == []
    return proposed


@pytest.mark.parametrize("case", CASES, ids=KINDS)
async def test_a_request_writes_only_after_yes_and_only_once(desk: Desk, desk_settings: Settings,
                                                             shop_customer: ShopCustomer, case: dict[str, Any]) -> None:
    proposed = await _propose(desk, desk_settings, shop_customer, case)
    assert proposed.pending is not None
    done = await _turn(desk, shop_customer.email, "yes", proposed.pending.token)
    assert done.status == "answered" and done.pending is None and "is recorded" in done.answer, done
    record = json.loads((desk_settings.runs_dir / f"{done.turn_id}.json").read_text(encoding="utf-8"))
    recall = [e["status"] for e in record["events"] if e["type"] == "step" and e["name"] == "recall"]
    assert recall == ["skipped"]  # a yes is carried out as signed: memories play no part
    rows = await _rows(desk_settings, shop_customer.email)
    assert len(rows) == 1
    row = rows[0]
    assert (row["order_id"], row["action"]) == (shop_customer.orders[case["status"]], case["kind"])
    assert row["items"] == case["row"].get("items")
    for key, value in case["row"].get("payload", {}).items():
        assert row["payload"][key] == value, row

    again = await _turn(desk, shop_customer.email, "Yes!", proposed.pending.token)
    assert again.status == "answered" and "already recorded" in again.answer, again
    assert await _rows(desk_settings, shop_customer.email) == rows


def _resigned(desk: Desk, token: str, **changes: Any) -> str:
    """The token's claims changed by `changes`, signed again by the desk's own key (test helper)."""
    body = PendingAction.model_validate_json(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    changed = body.model_copy(update=changes)
    return desk.signer.sign(changed.customer, changed.proposal, now=changed.expires_at - desk.signer.ttl_s)[0]


def _altered(token: str, **proposal: Any) -> str:
    """The token with its claims changed but its old signature kept."""
    body_part, mac = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body_part + "=="))
    claims["proposal"].update(proposal)
    body = base64.urlsafe_b64encode(json.dumps(claims, sort_keys=True, separators=(",", ":")).encode())
    return body.rstrip(b"=").decode() + "." + mac


@pytest.mark.parametrize("case", CASES, ids=KINDS)
@pytest.mark.parametrize("reply", ["no", "nein", "expired", "Actually, where is my latest order?"])
async def test_no_expiry_or_another_message_writes_nothing(desk: Desk, desk_settings: Settings,
                                                           shop_customer: ShopCustomer, case: dict[str, Any],
                                                           reply: str) -> None:
    proposed = await _propose(desk, desk_settings, shop_customer, case)
    assert proposed.pending is not None
    token = proposed.pending.token
    if reply == "expired":
        token = _resigned(desk, token, expires_at=int(time.time()) - 1)
        answered = await _turn(desk, shop_customer.email, "yes", token)
        assert "waited too long" in answered.answer, answered
    else:
        answered = await _turn(desk, shop_customer.email, reply, token)
    assert answered.status == "answered" and answered.pending is None, answered
    assert await _rows(desk_settings, shop_customer.email) == []
    # The discarded token is not revived by a later yes unless it is still valid and sent again.
    later = await _turn(desk, shop_customer.email, "yes")
    assert later.pending is None and await _rows(desk_settings, shop_customer.email) == []


@pytest.mark.parametrize("case", CASES, ids=KINDS)
@pytest.mark.parametrize("tamper", ["forged", "altered", "other-customer"])
async def test_a_forged_altered_or_foreign_pending_action_writes_nothing(
        desk: Desk, desk_settings: Settings, shop_customer: ShopCustomer, case: dict[str, Any],
        tamper: str) -> None:
    proposed = await _propose(desk, desk_settings, shop_customer, case)
    assert proposed.pending is not None
    token, email = proposed.pending.token, shop_customer.email
    if tamper == "forged":
        token = token.split(".")[0] + "." + base64.urlsafe_b64encode(b"\0" * 32).rstrip(b"=").decode()
    elif tamper == "altered":  # the same signature over another order of the customer's
        other = "shipped" if case["status"] != "shipped" else "processing"
        token = _altered(token, order_id=shop_customer.orders[other])
    else:
        email = "ben.okafor@example.com"
    refused = await _turn(desk, email, "yes", token)
    assert refused.status == "answered" and "nothing was recorded" in refused.answer, refused
    assert await _rows(desk_settings, shop_customer.email) == []
    async with connection(desk_settings) as conn:
        assert await conn.fetchval("SELECT count(*) FROM actions_log WHERE order_id = ANY($1::text[])",
                                   list(shop_customer.orders.values())) == 0


@pytest.mark.parametrize("message", [
    "Could I return order {delivered} if the shoes don't fit?",
    "Could I cancel {processing} if it's late?",
    "What if I wanted to exchange the shoes from order {delivered} for another size?",
    "Would it be possible to change the address of order {processing} later?",
    "Könnte ich die Bestellung {processing} stornieren, wenn sie zu spät kommt?",
    "¿Podría devolver el pedido {delivered} si no me queda bien?",
])
async def test_a_question_about_a_possibility_proposes_and_writes_nothing(
        desk: Desk, desk_settings: Settings, shop_customer: ShopCustomer, message: str) -> None:
    text = message.format(**{k.replace(" ", "_"): v for k, v in shop_customer.orders.items()})
    events = await drain(desk.run_turn(CustomerSession(shop_customer.email), text))
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.status == "answered" and final.pending is None, final
    assert "Nothing has been recorded" in final.answer, final.answer
    assert not [e for e in events if isinstance(e, ToolEvent) and e.name == "action-log"]
    assert await _rows(desk_settings, shop_customer.email) == []


@pytest.mark.parametrize("word", ["yes", "Yes.", "y", "ja", "sí", "oui", "sì", "sim", "no", "nein"])
async def test_the_guardrail_lets_a_bare_confirmation_word_through(desk: Desk, word: str) -> None:
    checked = await desk.services.guardrail.check(word)
    assert checked.verdict.verdict == "allow", checked


class _BlocksEverything:
    """A Guardrail that finds every message off-topic: what a stricter scope could do to "yes"."""

    async def check(self, text: str) -> GuardrailResult:
        return GuardrailResult(Verdict(verdict="block", reason="off topic", tier="model", score=1.0))


@pytest.mark.parametrize(("reply", "token", "passes"), [
    ("yes", "valid", True),  # only this: the exact word, answering this customer's valid pending action
    ("yes", None, False),
    ("yes", "forged", False),
    ("yes, and tell me a joke", "valid", False),
], ids=["exact-word-valid-token", "no-token", "forged-token", "more-than-the-word"])
async def test_a_stricter_guardrail_is_bypassed_only_by_a_bare_word_for_a_valid_pending_action(
        desk: Desk, desk_settings: Settings, shop_customer: ShopCustomer, reply: str, token: str | None,
        passes: bool) -> None:
    proposed = await _propose(desk, desk_settings, shop_customer, CASES[0])
    assert proposed.pending is not None
    sent = {"valid": proposed.pending.token, "forged": proposed.pending.token[:-4] + "AAAA", None: None}[token]
    strict = Desk(desk_settings, dataclasses.replace(desk.services, guardrail=_BlocksEverything()),
                      tracer_provider=desk.tracer_provider, runlog=desk.runlog)
    final = await _turn(strict, shop_customer.email, reply, sent)
    assert (final.status == "answered") is passes and (final.blocked_by == "guardrail") is not passes, final
    assert len(await _rows(desk_settings, shop_customer.email)) == int(passes)
