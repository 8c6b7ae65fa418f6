"""Session fixture: the whole desk on loopback — PostgreSQL, Toolbox, Judge, Masker — and a Pipeline."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from pipeline.desk import Pipeline
from pipeline.settings import Settings
from services.tests.fixtures import GuardEndpoint
from toolbox.server import ToolboxServer


@pytest.fixture(scope="session")
async def desk(desk_settings: Settings, toolbox_server: ToolboxServer, judge_service: GuardEndpoint,
               masker_service: GuardEndpoint) -> AsyncIterator[Pipeline]:
    pipeline = await Pipeline.build(desk_settings)
    yield pipeline
    await pipeline.aclose()
