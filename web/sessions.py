"""Server-side login sessions in PostgreSQL: revocable, expiring, stored only as a token hash."""

from __future__ import annotations

import hashlib
import secrets

import asyncpg

from db.accounts import Account

COOKIE = "sd_session"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SessionStore:
    def __init__(self, pool: asyncpg.Pool, *, ttl_s: int) -> None:
        self._pool = pool
        self.ttl_s = ttl_s

    async def create(self, email: str) -> str:
        """A new session for `email`; returns the token for the cookie (only its hash is stored)."""
        token = secrets.token_urlsafe(32)
        async with self._pool.acquire() as conn, conn.transaction():
            # Each login sweeps this customer's dead sessions, so the table cannot grow without bound.
            await conn.execute("DELETE FROM web_sessions WHERE customer_email = $1 "
                               "AND (expires_at <= now() OR revoked_at IS NOT NULL)", email)
            await conn.execute(
                "INSERT INTO web_sessions (token_hash, customer_email, expires_at) "
                "VALUES ($1, $2, now() + make_interval(secs => $3))", _hash(token), email, float(self.ttl_s))
        return token

    async def lookup(self, token: str | None) -> Account | None:
        if not token:
            return None
        row = await self._pool.fetchrow(
            "SELECT u.email, u.full_name FROM web_sessions s JOIN users u ON u.email = s.customer_email "
            "WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()", _hash(token))
        return Account(email=row["email"], full_name=row["full_name"]) if row else None

    async def revoke(self, token: str) -> None:
        await self._pool.execute("UPDATE web_sessions SET revoked_at = now() "
                                 "WHERE token_hash = $1 AND revoked_at IS NULL", _hash(token))
