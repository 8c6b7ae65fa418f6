"""Password checks against `users` (argon2), shared by the web login and `supportdesk chat`."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from typing import Any, Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

#: The one message for every failed login: it must not reveal whether the email exists.
LOGIN_FAILED = "That email and password do not match an account."


class RowSource(Protocol):
    """An asyncpg connection or pool."""

    async def fetchrow(self, query: str, *args: Any) -> Any: ...


@dataclass(frozen=True)
class Account:
    email: str
    full_name: str


def normalise_email(email: str) -> str:
    return email.strip().lower()


class PasswordCheck:
    def __init__(self) -> None:
        self._hasher = PasswordHasher()
        # Unknown emails are checked against this hash so they cost as long as known ones.
        self._decoy = self._hasher.hash(secrets.token_urlsafe(16))

    async def verify(self, db: RowSource, email: str, password: str) -> Account | None:
        """The account if `password` is right for `email`, else None (unknown email included)."""
        email = normalise_email(email)
        row = await db.fetchrow("SELECT email, full_name, password_hash FROM users WHERE email = $1", email)
        stored = row["password_hash"] if row is not None else self._decoy
        # argon2 is deliberately slow (tens of ms): keep it off the event loop.
        if not await asyncio.to_thread(self._matches, stored, password) or row is None:
            return None
        return Account(email=row["email"], full_name=row["full_name"])

    def _matches(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False
