"""The turn's side of propose-then-confirm: the card a proposal shows, and settling a reply.

A customer's reply settles a pending action only when the whole message is an exact confirmation
or refusal word (`pipeline.core.replies.reply_kind`) and the token verifies for this session's customer:
then "yes" writes exactly the signed proposal (once: the write's idempotency key) and "no" writes
nothing. A token that does not verify writes nothing whatever the message says; any other message
drops the pending action and is answered like any message (`Confirmation.settles` is False).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pipeline.core.replies import Reply, reply_kind
from pipeline.events import PendingCard
from pipeline.pending import PendingAction, PendingRefused, PendingSigner, ProposedAction
from pipeline.ports import ActionsPort, MaskerPort

_KINDS = {
    "delivery_instruction": "a delivery instruction",
    "return_request": "a return request",
    "cancel_request": "a cancel request",
    "exchange_request": "an exchange request",
    "address_change": "a change of delivery address",
}
REFUSED = {
    "forged": "That confirmation is not one this desk issued, so nothing was recorded. Please ask again.",
    "expired": "That request waited too long for a yes, so nothing was recorded. Please ask again.",
    "other customer": "That confirmation belongs to another session, so nothing was recorded.",
}
DECLINED = "Okay, nothing was recorded. Is there anything else I can help you with?"


def describe(proposal: ProposedAction) -> str:
    """What would be recorded, in one line (the card's text; masked before the customer sees it)."""
    what = _KINDS[proposal.action]
    scope = f" for {', '.join(proposal.items)} of order {proposal.order_id}" if proposal.items else \
        f" for order {proposal.order_id}"
    extra = ""
    if proposal.new_item:
        extra = f", to become: {proposal.new_item}"
    elif proposal.new_address:
        extra = f", new address: {proposal.new_address}"
    # The note is not repeated: the model words it, and its text stays in the run log
    # (`pipeline.redact`); the customer wrote the instruction themselves a moment ago.
    return f"{what[0].upper()}{what[1:]}{scope}{extra}"


def recorded(proposal: ProposedAction, row: dict[str, object]) -> str:
    """The answer once a confirmed action ran (from the row the Toolbox returned)."""
    if row.get("allowed") is False:
        return f"I could not record it: {row.get('reason')} Nothing was recorded."
    if not row.get("newly_recorded"):
        return (f"{describe(proposal)} was already recorded today, so nothing new was added. "
                "If it needs changing, please tell our team.")
    line = describe(proposal)
    return f"Done: {line[0].lower()}{line[1:]} is recorded. Our team will take it from here."


@dataclass(frozen=True)
class Confirmation:
    """What the token and the message mean together for this turn."""

    reply: Reply | None
    pending: PendingAction | None = None
    refused: str | None = None

    @property
    def settles(self) -> bool:
        """True when this turn answers the pending action (yes, no, or a token that failed)."""
        return self.reply is not None and (self.pending is not None or self.refused is not None)

    @property
    def verified(self) -> bool:
        """An exact yes/no word answering a pending action this desk signed for this customer."""
        return self.reply is not None and self.pending is not None

    @property
    def outcome(self) -> str:
        """For the run log: what this turn did with the pending action."""
        if self.refused is not None:
            return "refused"
        return "confirmed" if self.reply == "yes" else "declined"

    @classmethod
    def read(cls, signer: PendingSigner | None, token: str | None, message: str, customer: str) -> Confirmation:
        reply = reply_kind(message)
        if token is None or reply is None:
            return cls(reply)
        if signer is None:
            return cls(reply, refused=REFUSED["forged"])
        try:
            return cls(reply, pending=signer.verify(token, customer))
        except PendingRefused as refused:
            return cls(reply, refused=REFUSED[refused.why])

    async def settle(self, actions: ActionsPort | None) -> str:
        """The answer; on a verified yes, after writing the signed proposal."""
        if self.refused is not None or self.pending is None:
            return self.refused or REFUSED["forged"]
        if self.reply == "no":
            return DECLINED
        if actions is None:
            return "Nothing can be recorded on this desk right now. Please contact our team."
        proposal = self.pending.proposal
        proposed_at = datetime.fromtimestamp(self.pending.issued_at, UTC)
        return recorded(proposal, await actions.record(proposal, proposed_at=proposed_at))


async def pending_card(signer: PendingSigner | None, masker: MaskerPort, customer: str,
                       proposal: ProposedAction | None) -> PendingCard | None:
    """The signed card for this turn's proposal (None without one); its text masked like the answer."""
    if proposal is None or signer is None:
        return None
    token, pending = signer.sign(customer, proposal)
    summary = (await masker.mask(describe(proposal))).text
    return PendingCard(token=token, order_id=proposal.order_id, action=proposal.action, summary=summary,
                       expires_at=datetime.fromtimestamp(pending.expires_at, UTC))
