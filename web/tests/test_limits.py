"""Rate limits hold exactly under 50 concurrent requests across two server instances sharing PostgreSQL,
cannot be reset by a spoofed header or turned against an account's owner, and stay bounded in size."""

from __future__ import annotations

import asyncio
import math
import secrets
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest

from web import devices
from web.loginlimit import LoginLimits
from web.ratelimit import SWEEP_PER_HIT, RateLimiter
from web.tests.fixtures import WebServer, serve_web

CONCURRENT = 50
LIMIT = 5
CUSTOMER = "chloe.martin@example.com"
#: Windows are fixed and aligned to the database clock, so a test's hits that straddle a boundary
#: start counting again (a CI run near 01:30 UTC saw a 6th guess get 401, not 429). With a day's
#: window a boundary falls only at midnight UTC, not once in every five minutes of CI.
WINDOW_S = 86_400


@pytest.fixture()
async def two_workers(desk_settings: Any, desk: Any) -> AsyncIterator[list[WebServer]]:
    """Two app instances on one database, as two worker processes would be, with tight limits."""
    limits = {"login_max_attempts": LIMIT, "chat_max_per_window": LIMIT, "login_window_s": WINDOW_S,
              "chat_window_s": WINDOW_S}
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


async def _guess(server: WebServer, email: str, *, headers: dict[str, str] | None = None,
                 source: str = "127.0.0.1", cookies: dict[str, str] | None = None) -> int:
    async with server.client(transport=httpx.AsyncHTTPTransport(local_address=source), cookies=cookies) as client:
        response = await client.post("/api/login", json={"email": email, "password": "not-the-password"},
                                     headers=headers or {})
    return response.status_code


async def test_a_spoofed_forwarded_for_does_not_reset_the_address_limit(two_workers: list[WebServer]) -> None:
    # No proxy is configured (the default), so X-Forwarded-For is the client's word and counts for nothing.
    statuses = [await _guess(two_workers[0], f"spoof{i}@example.com", headers={"X-Forwarded-For": f"203.0.113.{i}"})
                for i in range(LIMIT + 3)]
    assert statuses == [401] * LIMIT + [429] * 3


async def test_a_listed_proxy_s_forwarded_for_is_the_client_address(desk_settings: Any, desk: Any) -> None:
    limits = {"login_max_attempts": LIMIT, "login_window_s": WINDOW_S, "forwarded_allow_ips": "127.0.0.1"}
    async with serve_web(desk_settings, desk, **limits) as proxied:
        await proxied.desk.pool.execute("DELETE FROM rate_limit_hits")
        # Behind the proxy each client is its own address: one client's guesses do not lock the others.
        statuses = [await _guess(proxied, f"proxied{i}@example.com", headers={"X-Forwarded-For": f"203.0.113.{i}"})
                    for i in range(LIMIT + 3)]
    assert statuses == [401] * (LIMIT + 3)


async def test_the_owner_of_a_locked_email_still_logs_in_from_a_browser_they_used(
        two_workers: list[WebServer], demo_password: str) -> None:
    server = two_workers[0]
    async with server.logged_in(CUSTOMER, demo_password) as owner:
        device = dict(owner.cookies)
    assert devices.COOKIE in device
    async with server.logged_in("ben.okafor@example.com", demo_password) as other_customer:
        foreign_device = {devices.COOKIE: other_customer.cookies[devices.COOKIE]}
    # A stranger locks the email from other addresses, one with a device cookie of their own account.
    guesses = [await _guess(server, CUSTOMER, source=f"127.0.3.{i + 1}", cookies=foreign_device)
               for i in range(LIMIT + 1)]
    assert guesses == [401] * LIMIT + [429]
    async with server.client() as new_browser:
        locked = await new_browser.post("/api/login", json={"email": CUSTOMER, "password": demo_password})
    assert locked.status_code == 429  # a browser never used for this account waits out the window
    async with server.client(cookies=device) as known_browser:
        # The owner's browser is limited on its own: their right password gets in at once.
        assert (await known_browser.post("/api/login", json={"email": CUSTOMER, "password": demo_password})
                ).status_code == 200
    # The device bucket still limits guessing, should the device cookie itself be stolen.
    stolen = [await _guess(server, CUSTOMER, source="127.0.4.1", cookies=device) for _ in range(LIMIT + 1)]
    assert stolen == [401] * LIMIT + [429]


async def test_random_email_attempts_leave_the_limit_table_bounded(two_workers: list[WebServer]) -> None:
    pool = two_workers[0].desk.pool
    gate = LoginLimits(RateLimiter(pool), max_attempts=LIMIT, window_s=WINDOW_S)
    domain = f"{secrets.token_hex(4)}.example"
    attempts = [gate.reserve(address="198.51.100.7", email=f"{secrets.token_hex(6)}@{domain}", device=None)
                for _ in range(10_000)]
    for start in range(0, len(attempts), 50):
        await asyncio.gather(*attempts[start:start + 50])
    rows = await pool.fetchval("SELECT count(*) FROM rate_limit_hits WHERE bucket LIKE $1 OR bucket = $2",
                               f"login:email:%@{domain}", "login:address:198.51.100.7")
    # The refused address stops there: its emails' buckets are never created, let alone kept.
    assert rows == LIMIT + 1


async def test_stale_limit_rows_of_any_bucket_are_swept(two_workers: list[WebServer]) -> None:
    pool = two_workers[0].desk.pool
    limiter = RateLimiter(pool)
    for _ in range(1_000):  # buckets hit once and never again, as random emails from many addresses are
        await limiter.hit(f"login:email:{secrets.token_hex(6)}@sweep.example", limit=LIMIT, window_s=1)
    await asyncio.sleep(1.1)
    # Earlier tests' rows whose windows have ended count too, and a slow loop above has already swept
    # some of its own: each hit sweeps SWEEP_PER_HIT rows of any bucket.
    ended = await pool.fetchval("SELECT now()")
    stale = await pool.fetchval("SELECT count(*) FROM rate_limit_hits WHERE expires_at < $1", ended)
    for _ in range(math.ceil(stale / SWEEP_PER_HIT)):
        await limiter.hit("login:address:198.51.100.8", limit=LIMIT, window_s=WINDOW_S)
    assert await pool.fetchval("SELECT count(*) FROM rate_limit_hits WHERE expires_at < $1", ended) == 0
    assert await pool.fetchval("SELECT sum(hits) FROM rate_limit_hits WHERE bucket = $1",
                               "login:address:198.51.100.8") == math.ceil(stale / SWEEP_PER_HIT)


async def test_an_ipv6_client_cannot_rotate_through_its_own_64_block(two_workers: list[WebServer]) -> None:
    gate = LoginLimits(RateLimiter(two_workers[0].desk.pool), max_attempts=LIMIT, window_s=WINDOW_S)
    block = [await gate.reserve(address=f"2001:db8:7:1::{i:x}", email=f"v6-{i}@example.com", device=None)
             for i in range(LIMIT + 1)]
    neighbour = await gate.reserve(address="2001:db8:7:2::1", email="v6-next@example.com", device=None)
    assert [r.retry_after_s is None for r in block] == [True] * LIMIT + [False]
    assert neighbour.retry_after_s is None  # the next /64 is someone else
