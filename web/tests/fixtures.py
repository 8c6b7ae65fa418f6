"""The web app served for real by uvicorn on a loopback socket bound first, on the desk's session services."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import pytest

from evals.loopback import listening_socket, port_of, serve_uvicorn
from pipeline import Desk, Settings
from web.app import server_config
from web.resources import WebResources, open_resources

#: Limits high enough that tests sharing the session server never trip each other's.
ROOMY_LIMITS = {"login_max_attempts": 10_000, "chat_max_per_window": 10_000}


@dataclass(frozen=True)
class WebServer:
    url: str
    settings: Settings
    desk: WebResources

    def client(self, **kwargs: object) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, timeout=30.0, trust_env=False, **kwargs)  # type: ignore[arg-type]

    @asynccontextmanager
    async def logged_in(self, email: str, password: str, **kwargs: object) -> AsyncIterator[httpx.AsyncClient]:
        async with self.client(**kwargs) as client:
            response = await client.post("/api/login", json={"email": email, "password": password})
            assert response.status_code == 200, response.text
            yield client


@asynccontextmanager
async def serve_web(settings: Settings, pipeline: Desk, **overrides: object) -> AsyncIterator[WebServer]:
    """Serve `create_app` on a fresh port with `settings` changed by `overrides`.

    The port is bound before the settings name it: the app's own URL is fixed before it serves.
    """
    with listening_socket() as sock:
        settings = settings.model_copy(update={"web_port": port_of(sock), **overrides})
        async with open_resources(settings, pipeline=pipeline) as desk, \
                serve_uvicorn(server_config(desk, log_level="warning", timeout_graceful_shutdown=5), sock):
            yield WebServer(url=f"http://{settings.web_host}:{settings.web_port}", settings=settings, desk=desk)


@pytest.fixture(scope="session")
async def web_server(desk_settings: Settings, desk: Desk) -> AsyncIterator[WebServer]:
    async with serve_web(desk_settings, desk, **ROOMY_LIMITS) as server:
        yield server
