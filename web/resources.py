"""Everything the web app holds for its lifetime, built once and injected into `create_app`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

import asyncpg
import httpx

from db.accounts import PasswordCheck
from db.connect import create_pool
from pipeline import Desk, Settings
from web.devices import KnownDevices
from web.loginlimit import LoginLimits
from web.ratelimit import RateLimiter
from web.readiness import Readiness
from web.sessions import SessionStore


@dataclass(frozen=True)
class WebResources:
    settings: Settings
    pipeline: Desk
    pool: asyncpg.Pool
    sessions: SessionStore
    limiter: RateLimiter
    login_limits: LoginLimits
    devices: KnownDevices
    passwords: PasswordCheck
    readiness: Readiness


@asynccontextmanager
async def open_resources(settings: Settings, *, pipeline: Desk | None = None,
                         pool_size: int = 10) -> AsyncIterator[WebResources]:
    """Open the pool and clients; build the pipeline unless one is given (then its owner closes it)."""
    async with AsyncExitStack() as stack:
        pool = await create_pool(settings, max_size=pool_size)
        stack.push_async_callback(pool.close)
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=2.0, trust_env=False))
        if pipeline is None:
            pipeline = await Desk.build(settings)
            stack.push_async_callback(pipeline.aclose)
        passwords = PasswordCheck(threads=settings.password_hash_threads, queue=settings.password_hash_queue)
        stack.callback(passwords.close)
        limiter = RateLimiter(pool)
        yield WebResources(
            settings=settings, pipeline=pipeline, pool=pool,
            sessions=SessionStore(pool, ttl_s=settings.session_ttl_s), limiter=limiter,
            login_limits=LoginLimits(limiter, max_attempts=settings.login_max_attempts,
                                     window_s=settings.login_window_s),
            devices=KnownDevices(pool, ttl_s=settings.login_device_ttl_s),
            passwords=passwords, readiness=Readiness(settings, pool, http))
