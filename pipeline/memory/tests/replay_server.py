"""A loopback stand-in for Mem0 Platform that replays recorded exchanges and keeps every request."""

from __future__ import annotations

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

RECORDINGS = json.loads(Path(__file__).with_name("mem0_cloud_recordings.json").read_text())


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    params: dict[str, str]
    body: Any


@dataclass
class ReplayServer:
    url: str = ""
    seen: list[Seen] = field(default_factory=list)
    answers: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def answer_with(self, exchange: dict[str, Any]) -> None:
        self.answers[(exchange["method"], exchange["path"])] = exchange

    async def _handle(self, request: Request) -> JSONResponse:
        raw = await request.body()
        self.seen.append(Seen(request.method, request.url.path, dict(request.headers),
                              dict(request.query_params), json.loads(raw) if raw else None))
        exchange = self.answers.get((request.method, request.url.path))
        if exchange is None:
            return JSONResponse({"detail": "not recorded"}, status_code=404)
        return JSONResponse(exchange["response"], status_code=exchange["status"])


@asynccontextmanager
async def replay_server(exchanges: dict[str, dict[str, Any]]) -> AsyncIterator[ReplayServer]:
    state = ReplayServer()
    for exchange in exchanges.values():
        state.answer_with(exchange)
    app = Starlette(routes=[Route("/{path:path}", state._handle, methods=["GET", "POST", "PUT", "DELETE"])])
    async with serve_app(app) as where:
        state.url = where.url
        yield state
