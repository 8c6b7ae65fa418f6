"""Actions that wait for the customer's yes: the signed token, and what counts as yes or no.

A write the model asks for is only proposed (`pipeline.agent.actions`); the turn ends with
`needs_confirmation` and a token: an HMAC-SHA256 (key generated on first run into a 0600 file, so
a token outlives a restart of the web process) over the customer, order, action, payload and
expiry. The token travels with the final event and comes back with the customer's next message
(the web page's JSON body, the CLI's REPL). Whatever the client sends, only a token this desk
signed, for this session's customer, before its expiry, is ever executed — and only exactly the
action it names. Executing twice lands once: the write's idempotency key covers it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.agent.policy import Action
from pipeline.core.private_files import read_private_file

_DOMAIN = b"supportdesk-pending-action-v1\x1f"
MAX_TOKEN_CHARS = 4096

class ProposedAction(BaseModel):
    """What would be recorded in `actions_log`, for which order (never the customer: that is bound)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    order_id: str = Field(pattern=r"^ORD-[0-9]{5}$")
    action: Action
    note: Annotated[str, Field(max_length=300)] = ""
    #: Names of the order's items concerned; None is the whole order.
    items: tuple[str, ...] | None = None
    new_item: Annotated[str, Field(max_length=200)] = ""
    new_address: Annotated[str, Field(max_length=300)] = ""


class PendingAction(BaseModel):
    """The signed claims: who may confirm, what, until when (Unix seconds)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    customer: str
    proposal: ProposedAction
    #: When the desk proposed it: the write's idempotency day is this one, not the day of the "yes",
    #: so the same token confirmed again after midnight UTC still lands once.
    issued_at: int
    expires_at: int


class PendingRefused(Exception):
    """A token that is not ours, altered, expired, or another customer's. Nothing is executed."""

    def __init__(self, why: Literal["forged", "expired", "other customer"]) -> None:
        super().__init__(why)
        self.why = why


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PendingSigner:
    def __init__(self, key: bytes, *, ttl_s: int) -> None:
        if len(key) < 32:
            raise ValueError("the pending-action key must be at least 32 bytes")
        self._key = key
        self.ttl_s = ttl_s

    @classmethod
    def from_file(cls, path: Path, *, ttl_s: int) -> PendingSigner:
        text = read_private_file(path, lambda: secrets.token_hex(32))
        return cls(bytes.fromhex(text.strip()), ttl_s=ttl_s)

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(self._key, _DOMAIN + body, hashlib.sha256).digest()

    def sign(self, customer: str, proposal: ProposedAction, *, now: float | None = None) -> tuple[str, PendingAction]:
        issued_at = int(time.time() if now is None else now)
        pending = PendingAction(customer=customer, proposal=proposal, issued_at=issued_at,
                                expires_at=issued_at + self.ttl_s)
        body = json.dumps(pending.model_dump(mode="json"), sort_keys=True, separators=(",", ":")).encode()
        return f"{_b64(body)}.{_b64(self._mac(body))}", pending

    def verify(self, token: str, customer: str, *, now: float | None = None) -> PendingAction:
        """The action `token` names, if this desk signed it for `customer` and it has not expired."""
        if len(token) > MAX_TOKEN_CHARS:  # before any decoding: no caller makes us work on a huge one
            raise PendingRefused("forged")
        try:
            body_part, mac_part = token.split(".")
            body, mac = _unb64(body_part), _unb64(mac_part)
        except ValueError:  # binascii.Error is a ValueError
            raise PendingRefused("forged") from None
        if not hmac.compare_digest(mac, self._mac(body)):
            raise PendingRefused("forged")
        try:
            pending = PendingAction.model_validate_json(body)
        except ValidationError:
            raise PendingRefused("forged") from None
        if not hmac.compare_digest(pending.customer.encode(), customer.encode()):
            raise PendingRefused("other customer")
        if pending.expires_at <= (time.time() if now is None else now):
            raise PendingRefused("expired")
        return pending
