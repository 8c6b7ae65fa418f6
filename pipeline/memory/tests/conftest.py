"""Memory test fixtures on the real embedded PostgreSQL (`desk_settings` from db.tests.fixtures)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from guards.embedding import Embedder
from pipeline.core.settings import Settings
from pipeline.memory.embedded import EmbeddedMemoryStore


@pytest.fixture(scope="session")
def memory_settings(desk_settings: Settings) -> Settings:
    """The desk's settings with a memory table of this test session's own."""
    return desk_settings.model_copy(update={"memory_collection": f"test_memories_{uuid.uuid4().hex[:8]}"})


@pytest.fixture(scope="session")
async def memory(memory_settings: Settings, embedder: Embedder) -> AsyncIterator[EmbeddedMemoryStore]:
    store = EmbeddedMemoryStore.from_settings(memory_settings, embedder=embedder)
    yield store
    await store.aclose()


@pytest.fixture()
def customer() -> str:
    """A customer id no other test uses."""
    return f"customer-{uuid.uuid4().hex[:10]}@example.com"
