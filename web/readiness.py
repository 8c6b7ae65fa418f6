"""`/readyz`: each dependency up or down, checked concurrently; no hosts, versions or errors leak.

Phoenix is reported but does not make the desk unready: traces are observability, and a turn
costs nothing when Phoenix is down.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Literal

import asyncpg
import httpx

from pipeline import Settings

log = logging.getLogger(__name__)
State = Literal["up", "down", "disabled"]
OPTIONAL = frozenset({"phoenix"})
MEM0_CLOUD_DEFAULT = "https://api.mem0.ai"


class Readiness:
    def __init__(self, settings: Settings, pool: asyncpg.Pool, http: httpx.AsyncClient, *, timeout_s: float = 2.0):
        self._settings = settings
        self._pool = pool
        self._http = http
        self._timeout_s = timeout_s

    async def check(self) -> tuple[bool, dict[str, State]]:
        checks: dict[str, Callable[[], Awaitable[bool]]] = {
            "database": self._database,
            "toolbox": lambda: self._answers(f"{self._settings.toolbox_url}/"),
            "judge": lambda: self._answers(f"{self._settings.judge_url}/healthz"),
            "masker": lambda: self._answers(f"{self._settings.masker_url}/healthz"),
            "memory": self._memory,
        }
        if self._settings.tracing_enabled:
            checks["phoenix"] = lambda: self._answers(f"{self._settings.phoenix_url}/healthz")
        results = await asyncio.gather(*(self._run(name, probe) for name, probe in checks.items()))
        states: dict[str, State] = dict(zip(checks, results, strict=True))
        states.setdefault("phoenix", "disabled")
        ready = all(state == "up" for name, state in states.items() if name not in OPTIONAL)
        return ready, states

    async def _run(self, name: str, probe: Callable[[], Awaitable[bool]]) -> State:
        try:
            async with asyncio.timeout(self._timeout_s):
                return "up" if await probe() else "down"
        except Exception as exc:  # any failure means down; the reason goes to the log only
            log.warning("readiness: %s is down: %s", name, exc)
            return "down"

    async def _answers(self, url: str, *, any_status: bool = False) -> bool:
        response = await self._http.get(url)
        return any_status or response.status_code == 200

    async def _database(self) -> bool:
        return bool(await self._pool.fetchval("SELECT 1"))

    async def _memory(self) -> bool:
        if self._settings.memory_backend == "cloud":
            # Reaching the service is what we can check without spending a request of the account.
            return await self._answers(self._settings.mem0_host or MEM0_CLOUD_DEFAULT, any_status=True)
        # Mem0 creates its table on first use; what it cannot do without is pgvector.
        return bool(await self._pool.fetchval("SELECT count(*) FROM pg_extension WHERE extname = 'vector'"))
