"""Cloud backend: Mem0 Platform through mem0's `AsyncMemoryClient`.

The client pings the service from its constructor with a blocking call and no timeout, so it is
built on first use, in a thread, under the store's timeout (and `build_memory` never blocks).
Requests go through our own httpx client so every call carries the memory timeout.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from pipeline.core.outbound import refuse_outside_calls
from pipeline.core.settings import Settings
from pipeline.memory.mem0_env import prepare_mem0
from pipeline.memory.records import Memory, SaveResult
from pipeline.memory.store import GuardedStore

if TYPE_CHECKING:
    from mem0 import AsyncMemoryClient


class CloudMemoryStore(GuardedStore):
    def __init__(self, *, api_key: str, host: str | None, mem0_dir: Path, min_score: float, max_chars: int,
                 top_k: int, timeout_s: float) -> None:
        super().__init__(min_score=min_score, max_chars=max_chars, top_k=top_k, timeout_s=timeout_s)
        self._api_key = api_key
        self._host = host
        self._mem0_dir = mem0_dir
        self._http = httpx.AsyncClient(timeout=timeout_s)
        self._client: AsyncMemoryClient | None = None
        self._connecting = asyncio.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> CloudMemoryStore:
        if settings.mem0_api_key is None:
            raise ValueError("the cloud memory backend needs MEM0_API_KEY")
        refuse_outside_calls("Mem0 Cloud", settings.mem0_host)
        return cls(api_key=settings.mem0_api_key.get_secret_value(), host=settings.mem0_host,
                   mem0_dir=settings.mem0_dir,
                   min_score=settings.t_mem_minscore, max_chars=settings.t_mem_maxchars,
                   top_k=settings.memory_top_k, timeout_s=settings.memory_timeout_s)

    async def _connected(self) -> AsyncMemoryClient:
        async with self._connecting:
            if self._client is None:
                prepare_mem0(self._mem0_dir)
                from mem0 import AsyncMemoryClient

                self._client = await asyncio.to_thread(
                    AsyncMemoryClient, api_key=self._api_key, host=self._host, client=self._http
                )
            return self._client

    async def _search(self, *, user_id: str, query: str, top_k: int) -> list[Memory]:
        client = await self._connected()
        # threshold 0: the desk's own cut-off runs afterwards and reports what it drops.
        found = await client.search(query, filters={"user_id": user_id}, top_k=top_k, threshold=0.0)
        items = found.get("results", []) if isinstance(found, dict) else found
        return [Memory(id=str(item["id"]), text=item["memory"], score=float(item.get("score") or 0.0))
                for item in items]

    async def _add(self, *, user_id: str, text: str) -> SaveResult:
        client = await self._connected()
        answer = await client.add([{"role": "user", "content": text}], filters={"user_id": user_id}, infer=False)
        return _save_result(answer)

    async def aclose(self) -> None:
        await self._http.aclose()


def _save_result(answer: Any) -> SaveResult:
    """Read the add answer: queued (`event_id`) on the v3 API, or the stored memories' ids."""
    entries = answer.get("results", [answer]) if isinstance(answer, dict) else list(answer)
    event_ids = [str(e["event_id"]) for e in entries if isinstance(e, dict) and e.get("event_id")]
    if isinstance(answer, dict) and answer.get("event_id"):
        event_ids.insert(0, str(answer["event_id"]))
    if event_ids:
        return SaveResult(status="queued", event_id=event_ids[0])
    return SaveResult(status="stored", memory_ids=[str(e["id"]) for e in entries if isinstance(e, dict) and "id" in e])
