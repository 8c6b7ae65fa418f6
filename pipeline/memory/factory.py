"""Choose the memory backend from settings: Mem0 Cloud when MEM0_API_KEY is set, else embedded."""

from __future__ import annotations

from guards.embedding import Embedder
from pipeline.core.settings import Settings
from pipeline.memory.store import MemoryStore


def build_memory(settings: Settings, *, embedder: Embedder) -> MemoryStore:
    """The process's memory store; close it with `await store.aclose()`."""
    if settings.memory_backend == "cloud":
        from pipeline.memory.cloud import CloudMemoryStore

        return CloudMemoryStore.from_settings(settings)
    from pipeline.memory.embedded import EmbeddedMemoryStore

    return EmbeddedMemoryStore.from_settings(settings, embedder=embedder)
