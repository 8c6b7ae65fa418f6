"""Fixtures of the model tests: the shared embedder, settings and the provider replay server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio

from guards.embedding.tests.fixtures import embedder  # noqa: F401  (the shared session fixture)
from pipeline.core.settings import Settings
from pipeline.models.tests.replay_server import ReplayServer


@pytest.fixture(scope="session")
def make_settings() -> Callable[..., Settings]:
    """Settings with throw-away database passwords (these tests never reach PostgreSQL).

    The model fields are pinned so that neither `.env` nor the environment changes a case.
    """

    def make(**overrides: Any) -> Settings:
        base: dict[str, Any] = {"postgres_password": "unused", "postgres_reader_password": "unused",
                                "postgres_writer_password": "unused", "google_api_key": None,
                                "supportdesk_model": None, "litellm_api_base": None, "litellm_api_key": None}
        return Settings(_env_file=None, **(base | overrides))  # type: ignore[call-arg]

    return make


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def replay() -> AsyncIterator[ReplayServer]:
    async with ReplayServer().running() as server:
        yield server
