"""build_memory picks the backend from settings alone."""

from __future__ import annotations

from pydantic import SecretStr

from guards.embedding import Embedder
from pipeline.core.settings import Settings
from pipeline.memory.cloud import CloudMemoryStore
from pipeline.memory.embedded import EmbeddedMemoryStore
from pipeline.memory.factory import build_memory


async def test_no_key_means_embedded(memory_settings: Settings, embedder: Embedder) -> None:
    store = build_memory(memory_settings, embedder=embedder)
    try:
        assert isinstance(store, EmbeddedMemoryStore)
    finally:
        await store.aclose()


async def test_a_key_means_cloud_without_contacting_it_yet(base_settings: Settings, embedder: Embedder) -> None:
    settings = base_settings.model_copy(update={"mem0_api_key": SecretStr("m0-anything"), "mem0_host": "http://127.0.0.1:9"})
    store = build_memory(settings, embedder=embedder)
    try:
        assert isinstance(store, CloudMemoryStore)
    finally:
        await store.aclose()
