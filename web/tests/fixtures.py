"""The web app served for real by uvicorn on a free loopback port, on the desk's session services."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Generator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass

import httpx
import pytest
import uvicorn

from evals.harness import free_port
from pipeline import Desk, Settings
from web.app import server_config
from web.resources import WebResources, open_resources

#: Limits high enough that tests sharing the session server never trip each other's.
ROOMY_LIMITS = {"login_max_attempts": 10_000, "chat_max_per_window": 10_000}


class _Server(uvicorn.Server):
    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        # Ctrl-C belongs to pytest, not to a server running inside it.
        yield


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
    """Serve `create_app` on a fresh port with `settings` changed by `overrides`."""
    settings = settings.model_copy(update={"web_port": free_port(), **overrides})
    async with open_resources(settings, pipeline=pipeline) as desk:
        server = _Server(server_config(desk, log_level="warning", timeout_graceful_shutdown=5))
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("uvicorn stopped before it started")
            await asyncio.sleep(0.01)
        try:
            yield WebServer(url=f"http://{settings.web_host}:{settings.web_port}", settings=settings, desk=desk)
        finally:
            server.should_exit = True
            await task


@pytest.fixture(scope="session")
async def web_server(desk_settings: Settings, desk: Desk) -> AsyncIterator[WebServer]:
    async with serve_web(desk_settings, desk, **ROOMY_LIMITS) as server:
        yield server
