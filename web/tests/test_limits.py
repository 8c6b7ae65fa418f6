"""Rate limits hold exactly under 50 concurrent requests, across two server instances sharing PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest

from web.tests.fixtures import WebServer, serve_web

CONCURRENT = 50
LIMIT = 5
CUSTOMER = "chloe.martin@example.com"


@pytest.fixture()
async def two_workers(desk_settings: Any, desk: Any) -> AsyncIterator[list[WebServer]]:
    """Two app instances on one database, as two worker processes would be, with tight limits."""
    limits = {"login_max_attempts": LIMIT, "chat_max_per_window": LIMIT, "login_window_s": 300, "chat_window_s": 300}
    async with AsyncExitStack() as stack:
        servers = [await stack.enter_async_context(serve_web(desk_settings, desk, **limits)) for _ in range(2)]
        await servers[0].desk.pool.execute("DELETE FROM rate_limit_hits")
        yield servers


def _client(server: WebServer, source: str) -> httpx.AsyncClient:
    return server.client(transport=httpx.AsyncHTTPTransport(local_address=source))


def _check_refusals(responses: list[httpx.Response], allowed_status: int, window_s: int) -> None:
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {allowed_status: LIMIT, 429: CONCURRENT - LIMIT}, statuses
    for response in responses:
        if response.status_code == 429:
            assert 1 <= int(response.headers["retry-after"]) <= window_s
            assert set(response.json()) == {"error"}


# Each guess comes from its own loopback address and/or names its own email, so only the bucket
# under test is shared by all of them.
@pytest.mark.parametrize("shared", ["email", "address"])
async def test_failed_logins_are_limited_per_email_and_per_address(two_workers: list[WebServer], demo_password: str,
                                                                   shared: str) -> None:
    async def guess(i: int) -> httpx.Response:
        source = f"127.0.{1 + i // 200}.{1 + i % 200}" if shared == "email" else "127.0.0.1"
        email = CUSTOMER if shared == "email" else f"guess{i}@example.com"
        async with _client(two_workers[i % 2], source) as client:
            return await client.post("/api/login", json={"email": email, "password": demo_password + "!"})

    responses = await asyncio.gather(*(guess(i) for i in range(CONCURRENT)))
    _check_refusals(list(responses), 401, two_workers[0].settings.login_window_s)


async def test_successful_logins_do_not_use_up_the_limit(two_workers: list[WebServer], demo_password: str) -> None:
    for _ in range(LIMIT * 2):
        async with two_workers[0].logged_in(CUSTOMER, demo_password):
            pass
    async with two_workers[0].client() as client:
        for _ in range(LIMIT):
            assert (await client.post("/api/login", json={"email": CUSTOMER, "password": "wrong"})).status_code == 401
        # Once the limit is reached even the right password waits: guessing must not confirm it.
        locked = await client.post("/api/login", json={"email": CUSTOMER, "password": demo_password})
    assert locked.status_code == 429


async def test_chat_limit_per_customer_holds_under_concurrency(two_workers: list[WebServer],
                                                               demo_password: str) -> None:
    async with two_workers[0].logged_in(CUSTOMER, demo_password) as session:
        cookies = dict(session.cookies)

    async def ask(i: int) -> httpx.Response:
        async with two_workers[i % 2].client(cookies=cookies) as client:
            response = await client.post("/api/chat", json={"message": "Where is my latest order?"})
            await response.aread()
            return response

    responses = await asyncio.gather(*(ask(i) for i in range(CONCURRENT)))
    _check_refusals(list(responses), 200, two_workers[0].settings.chat_window_s)
    count = await two_workers[0].desk.pool.fetchval(
        "SELECT hits FROM rate_limit_hits WHERE bucket = $1", f"chat:{CUSTOMER}")
    assert count == CONCURRENT
