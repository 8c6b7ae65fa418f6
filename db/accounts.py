"""Password checks against `users` (argon2), shared by the web login and `supportdesk chat`.

Each check hashes with 64 MiB of memory for tens of milliseconds, so checks run on their own small
thread pool with a bounded number waiting: a burst of logins then gets `PasswordChecksBusy` (the
web answers 503) instead of queueing without end, and never starves the event loop's default
pool, which memory recall and save use.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
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


class PasswordChecksBusy(Exception):
    """Every hashing thread is busy and the waiting line is full: try again in a moment."""


class PasswordCheck:
    def __init__(self, *, threads: int = 1, queue: int = 0) -> None:
        self._hasher = PasswordHasher()
        # Unknown emails are checked against this hash so they cost as long as known ones.
        self._decoy = self._hasher.hash(secrets.token_urlsafe(16))
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="password-check")
        # Held from submission until the hash is done (not until the awaiting request gives up),
        # so a cancelled login cannot make room for more work than there are slots.
        self._slots = threading.BoundedSemaphore(threads + queue)

    async def verify(self, db: RowSource, email: str, password: str) -> Account | None:
        """The account if `password` is right for `email`, else None (unknown email included).

        Raises `PasswordChecksBusy` when `threads + queue` checks are already under way.
        """
        if not self._slots.acquire(blocking=False):
            raise PasswordChecksBusy()
        try:
            email = normalise_email(email)
            row = await db.fetchrow("SELECT email, full_name, password_hash FROM users WHERE email = $1", email)
            stored = row["password_hash"] if row is not None else self._decoy
            future = self._executor.submit(self._matches, stored, password)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        if not await asyncio.wrap_future(future) or row is None:
            return None
        return Account(email=row["email"], full_name=row["full_name"])

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _matches(self, stored: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False
