"""Password checks (argon2, 64 MiB each) run on their own bounded pool: a burst gets 503, not a queue."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import Any

from db.accounts import Account, PasswordCheck, PasswordChecksBusy
from db.connect import create_pool
from web.tests.fixtures import ROOMY_LIMITS, serve_web

CUSTOMER = "emma.schmidt@example.com"


class _Recording(PasswordCheck):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.threads: list[str] = []

    def _matches(self, stored: str, password: str) -> bool:
        self.threads.append(threading.current_thread().name)
        return super()._matches(stored, password)


async def test_checks_beyond_threads_plus_queue_are_refused_and_never_use_the_default_pool(
        desk_settings: Any, demo_password: str) -> None:
    check = _Recording(threads=1, queue=1)
    pool = await create_pool(desk_settings, max_size=3)
    try:
        results = await asyncio.gather(*(check.verify(pool, CUSTOMER, demo_password) for _ in range(3)),
                                       return_exceptions=True)
        assert Counter(type(r) for r in results) == {Account: 2, PasswordChecksBusy: 1}
        # Both slots came back once their hashes were done.
        again = await asyncio.gather(*(check.verify(pool, CUSTOMER, demo_password) for _ in range(2)))
        assert all(isinstance(account, Account) for account in again)
    finally:
        check.close()
        await pool.close()
    assert len(check.threads) == 4 and all(name.startswith("password-check") for name in check.threads)


async def test_a_burst_of_logins_gets_503_with_retry_after(desk_settings: Any, desk: Any, demo_password: str) -> None:
    async with serve_web(desk_settings, desk, password_hash_threads=1, password_hash_queue=0,
                         **ROOMY_LIMITS) as server:
        async def login() -> Any:
            async with server.client() as client:
                return await client.post("/api/login", json={"email": CUSTOMER, "password": demo_password})

        responses = await asyncio.gather(*(login() for _ in range(16)))
    statuses = Counter(r.status_code for r in responses)
    assert set(statuses) == {200, 503}, statuses
    for response in responses:
        if response.status_code == 503:
            assert response.headers["retry-after"] == "1" and set(response.json()) == {"error"}
