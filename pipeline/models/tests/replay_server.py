"""A loopback HTTP server that answers provider requests with recorded payloads, in order.

It serves Gemini's `POST /v1beta/models/<model>:generateContent` and the OpenAI-compatible
`POST /v1/chat/completions` (what LiteLLM calls with `api_base=<server>/v1`). Each request
takes the next queued exchange (status, recorded JSON body, optional delay) and is kept with
its body, so a test can count attempts and inspect what the adapter sent.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

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

    async def serve(self) -> tuple[uvicorn.Server, asyncio.Task[None]]:
        """Start on a free loopback port; returns the server and its task (stop: should_exit)."""
        server = uvicorn.Server(uvicorn.Config(self.app(), host="127.0.0.1", port=0, log_level="warning",
                                               lifespan="off"))
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}"
        return server, task
