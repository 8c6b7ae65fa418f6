"""Session fixtures: the real Toolbox binary on a free port, and a loaded client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from pipeline.core.settings import Settings
from toolbox.client import ToolboxGateway
from toolbox.server import ToolboxServer


@pytest.fixture(scope="session")
def toolbox_server(desk_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolboxServer]:
    server = ToolboxServer(desk_settings, log_path=tmp_path_factory.mktemp("toolbox") / "toolbox.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
async def gateway(desk_settings: Settings, toolbox_server: ToolboxServer) -> AsyncIterator[ToolboxGateway]:
    client = ToolboxGateway.from_settings(desk_settings)
    await client.load()
    yield client
    await client.aclose()
