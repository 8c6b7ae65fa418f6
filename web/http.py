"""HTTP plumbing shared by every route: security headers on each response (pure ASGI, so streamed
ones are not buffered), and JSON request bodies read within a byte limit, with the status code
each failure deserves."""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Scripts and styles only from our own files: no inline script, no CDN, no framing.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
                if scope["path"].startswith("/api/"):
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def read_json(request: Request, *, max_bytes: int) -> Any:
    """413 past `max_bytes` (declared or streamed), 415 unless JSON is declared, 400 if it does not parse."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > max_bytes):
        raise HTTPException(413, "That message is too large.")
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise HTTPException(415, "Send the request as application/json.")
    body = bytearray()
    # A chunked upload has no Content-Length: count while reading, never buffer past the limit.
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise HTTPException(413, "That message is too large.")
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise HTTPException(400, "The request body is not valid JSON.") from None
    except RecursionError:
        # A few kB of nested brackets exhaust the decoder's stack: the body's fault, not a 500.
        raise HTTPException(400, "The request body is nested too deeply.") from None
