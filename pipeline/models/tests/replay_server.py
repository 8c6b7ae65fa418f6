"""A loopback HTTP server that answers provider requests with recorded payloads, in order.

It serves Gemini's `POST /v1beta/models/<model>:generateContent` and the OpenAI-compatible
`POST /v1/chat/completions` (what LiteLLM calls with `api_base=<server>/v1`). Each request
takes the next queued exchange (status, recorded JSON body, optional delay) and is kept with
its body, so a test can count attempts and inspect what the adapter sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from evals.loopback import serve_app

RECORDINGS = Path(__file__).parent / "recordings"


@dataclass(frozen=True)
class Exchange:
    status: int
    body: dict[str, Any]
    delay_s: float = 0.0

    @classmethod
    def recorded(cls, name: str, *, status: int = 200, delay_s: float = 0.0) -> Exchange:
        return cls(status, json.loads((RECORDINGS / name).read_text(encoding="utf-8")), delay_s)


@dataclass
class ReplayServer:
    queue: list[Exchange] = field(default_factory=list)
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    base_url: str = ""

    def load(self, exchanges: list[Exchange]) -> None:
        self.queue = list(exchanges)
        self.requests.clear()

    async def _handle(self, request: Request) -> JSONResponse:
        self.requests.append((request.url.path, await request.json()))
        if not self.queue:
            return JSONResponse({"error": {"code": 500, "message": "no recording queued"}}, status_code=500)
        exchange = self.queue.pop(0)
        if exchange.delay_s:
            await asyncio.sleep(exchange.delay_s)
        return JSONResponse(exchange.body, status_code=exchange.status)

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/v1beta/models/{target:path}", self._handle, methods=["POST"]),
            Route("/v1/chat/completions", self._handle, methods=["POST"]),
        ])

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ReplayServer]:
        """Serve on a fresh loopback port (`base_url`) until the block ends."""
        async with serve_app(self.app()) as where:
            self.base_url = where.url
            yield self
