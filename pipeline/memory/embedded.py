"""Embedded backend: Mem0's open-source `Memory` on pgvector in the desk's PostgreSQL.

Mem0's API is synchronous; each recall or save is one `asyncio.to_thread` hop (its
`AsyncMemory` would make one hop per internal step on the same synchronous pgvector store).
The score we report is the pure cosine similarity (`score_details.semantic_score`): Mem0's own
ranking score mixes in a keyword score only when some memory happens to share every query word,
so its scale changes from query to query and no fixed cut-off could apply to it.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import TYPE_CHECKING, Any

from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

from guards.embedding import Embedder
from pipeline.core.settings import Settings
from pipeline.memory.mem0_env import prepare_mem0
from pipeline.memory.policy import worth_saving
from pipeline.memory.records import Memory, SaveResult
from pipeline.memory.store import GuardedStore

if TYPE_CHECKING:
    from mem0 import Memory as Mem0Memory


def _conninfo(settings: Settings) -> str:
    # Key/value conninfo quotes any password; Mem0's own URL builder would not.
    timeout_ms = int(settings.memory_timeout_s * 1000)
    return make_conninfo(
        host=settings.pg_host, port=settings.postgres_port, dbname=settings.postgres_db,
        user=settings.postgres_user, password=settings.postgres_password.get_secret_value(),
        connect_timeout=max(1, int(settings.db_timeout_s)), application_name="supportdesk-memory",
        options=f"-c statement_timeout={timeout_ms}",
    )


def _pool(settings: Settings) -> ConnectionPool:
    # Our own pool rather than Mem0's: autocommit spares a BEGIN/ROLLBACK round trip pair per
    # statement, and waiting for a connection is bounded by the memory timeout (psycopg's
    # default is 30 s) so a dead database fails the call instead of hanging a thread.
    pool = ConnectionPool(_conninfo(settings), min_size=1, max_size=4, open=False,
                          timeout=settings.memory_timeout_s, kwargs={"autocommit": True})
    pool.open(wait=False)
    return pool


def open_mem0(settings: Settings, embedder: Embedder) -> Mem0Memory:
    """A Mem0 `Memory` on the desk's PostgreSQL with the local embedder and no LLM."""
    prepare_mem0(settings.mem0_dir)
    from mem0 import Memory as Mem0Memory
    from mem0.configs.base import MemoryConfig
    from mem0.vector_stores.configs import VectorStoreConfig

    from pipeline.memory import mem0_plugins

    mem0_plugins.register()
    config = MemoryConfig(
        vector_store=VectorStoreConfig(provider="pgvector", config={
            "connection_pool": _pool(settings),
            "collection_name": settings.memory_collection,
            "embedding_model_dims": embedder.dims,
            # Exact search: an HNSW scan filters by customer only after picking its nearest
            # candidates among all customers, so a customer's memories could be missed.
            "hnsw": False,
        }),
        embedder=mem0_plugins.embedder_config(embedder),
        llm=mem0_plugins.llm_config(),
        # Mem0's change log of memories. The memories themselves live in PostgreSQL; a shared
        # SQLite file would serialise every desk process's saves and cost an fsync (~20 ms here)
        # per save, for a log the desk never reads.
        history_db_path=":memory:",
    )
    return Mem0Memory(config)


class EmbeddedMemoryStore(GuardedStore):
    def __init__(self, memory: Mem0Memory, *, min_score: float, max_chars: int, top_k: int,
                 timeout_s: float) -> None:
        super().__init__(min_score=min_score, max_chars=max_chars, top_k=top_k, timeout_s=timeout_s)
        self._memory = memory
        self._table_ready = False
        self._table_lock = asyncio.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, *, embedder: Embedder) -> EmbeddedMemoryStore:
        return cls(open_mem0(settings, embedder), min_score=settings.t_mem_minscore,
                   max_chars=settings.t_mem_maxchars, top_k=settings.memory_top_k,
                   timeout_s=settings.memory_timeout_s)

    async def _ensure_table(self) -> None:
        # Mem0 creates its table on first use without a lock: the first two recalls of a fresh
        # desk, in two worker threads, raced in PostgreSQL's catalog and one turn ended in a 503.
        if self._table_ready:
            return
        async with self._table_lock:
            if not self._table_ready:
                await asyncio.to_thread(self._memory.vector_store.create_col)
                self._table_ready = True

    async def _search(self, *, user_id: str, query: str, top_k: int) -> list[Memory]:
        await self._ensure_table()
        return await asyncio.to_thread(self._search_sync, user_id, query, top_k)

    def _search_sync(self, user_id: str, query: str, top_k: int) -> list[Memory]:
        # Most customers have no memory: for them a one-row lookup replaces embedding the message
        # (~12 ms of a core, spent beside the Judge's round trip, whose e5 wants the other one).
        # A message the turn will save is embedded all the same, here rather than on the turn's
        # path at save time (the vector is cached).
        if self._first({"user_id": user_id}) is None:
            if worth_saving(query):
                self._memory.embedding_model.embed(query, "add")
            return []
        found = self._memory.search(query, top_k=top_k, filters={"user_id": user_id}, threshold=0.0, explain=True)
        return [Memory(id=item["id"], text=item["memory"], score=item["score_details"]["semantic_score"])
                for item in found["results"]]

    def _first(self, filters: dict[str, str]) -> Any | None:
        """One stored memory matching `filters` (Mem0's payload fields), or None."""
        found: Any = self._memory.vector_store.list(filters=filters, top_k=1)
        rows = found[0] if found and isinstance(found[0], list) else found
        return rows[0] if rows else None

    async def _add(self, *, user_id: str, text: str) -> SaveResult:
        await self._ensure_table()
        return await asyncio.to_thread(self._add_sync, user_id, text)

    def _add_sync(self, user_id: str, text: str) -> SaveResult:
        # Mem0 keeps an md5 of each memory's text in its payload: the same instruction said
        # twice is stored once, or every later recall would repeat it.
        content_hash = hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()
        same = self._first({"user_id": user_id, "hash": content_hash})
        if same is not None:
            return SaveResult(status="duplicate", memory_ids=[str(same.id)])
        # Only the customer's own message, as a user turn: with infer=False Mem0 stores every
        # message it is handed, the assistant's included.
        added = self._memory.add([{"role": "user", "content": text}], user_id=user_id, infer=False)
        return SaveResult(status="stored", memory_ids=[item["id"] for item in added["results"]])

    async def aclose(self) -> None:
        await asyncio.to_thread(self._close_sync)

    def _close_sync(self) -> None:
        self._memory.close()
        self._memory.vector_store.connection_pool.close()
