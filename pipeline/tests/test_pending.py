"""The pending-action token on its own: which words confirm, and a key that outlives the process."""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipeline.confirm import Confirmation
from pipeline.core.replies import reply_kind
from pipeline.pending import PendingRefused, PendingSigner, ProposedAction

PROPOSAL = ProposedAction(order_id="ORD-10042", action="exchange_request", items=("Trail running shoes",),
                          new_item="size 44")


@pytest.mark.parametrize(("text", "kind"), [
    ("yes", "yes"), (" Yes! ", "yes"), ("YES PLEASE", "yes"), ("ja", "yes"), ("Sí", "yes"), ("oui.", "yes"),
    ("sì", "yes"), ("sim", "yes"), ("y", "yes"), ("no", "no"), ("Nein", "no"), ("non", "no"), ("não", "no"),
    ("yes, and cancel ORD-10001 too", None), ("yesterday", None), ("I said yes", None), ("", None),
])
def test_only_exact_confirmation_words_count(text: str, kind: str | None) -> None:
    assert reply_kind(text) == kind


def test_a_token_signed_before_a_restart_verifies_after_it(tmp_path: Path) -> None:
    key = tmp_path / "state" / "pending-action-key"
    token, _ = PendingSigner.from_file(key, ttl_s=60).sign("ava@example.com", PROPOSAL)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert PendingSigner.from_file(key, ttl_s=60).verify(token, "ava@example.com").proposal == PROPOSAL
    other_key = PendingSigner.from_file(tmp_path / "other-key", ttl_s=60)
    with pytest.raises(PendingRefused) as refused:
        other_key.verify(token, "ava@example.com")
    assert refused.value.why == "forged"


@pytest.mark.parametrize(("customer", "now_offset", "why"), [
    ("ben@example.com", 0, "other customer"), ("ava@example.com", 61, "expired"),
])
def test_a_token_is_bound_to_its_customer_and_its_expiry(tmp_path: Path, customer: str, now_offset: int,
                                                         why: str) -> None:
    signer = PendingSigner.from_file(tmp_path / "key", ttl_s=60)
    token, pending = signer.sign("ava@example.com", PROPOSAL, now=1_000_000)
    with pytest.raises(PendingRefused) as refused:
        signer.verify(token, customer, now=1_000_000 + now_offset)
    assert refused.value.why == why
    assert signer.verify(token, "ava@example.com", now=1_000_059) == pending


@pytest.mark.parametrize("token", ["", "abc", "a.b.c", "!!!.???", "e30.AAAA"])
def test_garbage_tokens_are_refused_as_forged(tmp_path: Path, token: str) -> None:
    with pytest.raises(PendingRefused) as refused:
        PendingSigner.from_file(tmp_path / "key", ttl_s=60).verify(token, "ava@example.com")
    assert refused.value.why == "forged"


class _RecordingDesk:
    def __init__(self) -> None:
        self.proposed_at: list[datetime] = []

    async def record(self, proposal: ProposedAction, *, proposed_at: datetime) -> dict[str, object]:
        self.proposed_at.append(proposed_at)
        return {"newly_recorded": len(self.proposed_at) == 1}


async def test_a_yes_writes_under_the_day_it_was_proposed_not_the_day_it_arrives(tmp_path: Path) -> None:
    """The write's idempotency day comes from the signed token: one token confirmed twice, once on
    each side of midnight UTC, carries the same day both times, so it lands once."""
    signer = PendingSigner.from_file(tmp_path / "key", ttl_s=3600)
    before_midnight = datetime(2026, 12, 1, 23, 50, tzinfo=UTC).timestamp()
    token, _ = signer.sign("ava@example.com", PROPOSAL, now=before_midnight)
    desk = _RecordingDesk()
    for arrives in (before_midnight + 60, before_midnight + 1200):  # 23:51 and 00:10 the next day
        confirmation = Confirmation(reply="yes", pending=signer.verify(token, "ava@example.com", now=arrives))
        await confirmation.settle(desk)
    assert desk.proposed_at == [datetime(2026, 12, 1, 23, 50, tzinfo=UTC)] * 2
