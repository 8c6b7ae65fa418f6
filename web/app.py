"""The Starlette app: page, JSON API, health. Errors become short JSON bodies, never stack traces."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from web import auth, chat
from web.http import SecurityHeaders
from web.resources import WebResources

STATIC = Path(__file__).parent / "static"
log = logging.getLogger(__name__)


async def index(_: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


async def healthz(_: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    ready, states = await auth.resources(request).readiness.check()
    return JSONResponse({"status": "ready" if ready else "unready", "dependencies": states},
                        200 if ready else 503)


async def http_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)


async def server_error(_: Request, exc: Exception) -> Response:
    log.exception("unhandled error", exc_info=exc)
    return JSONResponse({"error": "Something went wrong on our side. Please try again in a moment."}, 500)


def create_app(desk: WebResources) -> Starlette:
    app = Starlette(
        debug=False,
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/api/login", auth.login, methods=["POST"]),
            Route("/api/logout", auth.logout, methods=["POST"]),
            Route("/api/me", auth.me, methods=["GET"]),
            Route("/api/chat", chat.chat, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    app.state.desk = desk
    return app


def server_config(desk: WebResources, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the desk, shared by `python -m web` and the tests.

    X-Forwarded-For/-Proto are read only from the proxies in FORWARDED_ALLOW_IPS (none by default):
    trusted from anyone, every client could pick the address its login attempts count against.
    """
    settings = desk.settings
    proxies = settings.forwarded_allow_ips.strip()
    return uvicorn.Config(create_app(desk), host=settings.web_host, port=settings.web_port, lifespan="off",
                          proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None, **options)
