"""Known devices: browsers that logged in to an account before, remembered by a random cookie.

The owner's way in while their email is locked. Guessing at an email counts against that email
(and the guesser's address); a browser holding a device token for the email is limited per
device instead, so strangers' guesses can never lock the owner out of a browser they used
before. A token is minted only by a successful login (an attacker needs the password first),
is bound to one email, is stored as a hash, expires, and each email keeps its newest
`MAX_PER_EMAIL` — the table is bounded by the number of accounts.
"""

from __future__ import annotations

import hashlib
import secrets

import asyncpg

COOKIE = "sd_device"
MAX_PER_EMAIL = 10


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class KnownDevices:
    def __init__(self, pool: asyncpg.Pool, *, ttl_s: int) -> None:
        self._pool = pool
        self.ttl_s = ttl_s

    async def recognise(self, token: str | None, email: str) -> str | None:
        """The device's id (its token hash) when `token` is a live device token for `email`, else None."""
        if not token:
            return None
        digest = _hash(token)
        found = await self._pool.fetchval("SELECT 1 FROM web_login_devices WHERE token_hash = $1 "
                                          "AND customer_email = $2 AND expires_at > now()", digest, email)
        return digest if found else None

    async def remember(self, email: str) -> str:
        """A new device token for `email` (for the cookie); sweeps its expired and oldest devices."""
        token = secrets.token_urlsafe(32)
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO web_login_devices (token_hash, customer_email, expires_at) "
                "VALUES ($1, $2, now() + make_interval(secs => $3))", _hash(token), email, float(self.ttl_s))
            await conn.execute(
                "DELETE FROM web_login_devices WHERE customer_email = $1 AND (expires_at <= now() OR token_hash IN "
                "(SELECT token_hash FROM web_login_devices WHERE customer_email = $1 "
                "ORDER BY created_at DESC, token_hash OFFSET $2))", email, MAX_PER_EMAIL)
        return token
