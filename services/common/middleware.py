"""ASGI middleware in front of a guard's JSON-RPC endpoint: shared bearer token, request body.

Both are plain ASGI (not Starlette's `BaseHTTPMiddleware`) so they add microseconds, not a task
per request. Rejections are JSON-RPC error objects, so any A2A client can read them.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Collection

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


async def send_jsonrpc_error(
    send: Send, status: int, code: int, message: str, headers: Collection[tuple[bytes, bytes]] = ()
) -> None:
    """Answer with a JSON-RPC error object (id null: the request was never parsed)."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *headers,
        ],
    })
    await send({"type": "http.response.body", "body": body})


class BearerAuth:
    """Require `Authorization: Bearer <token>` on every path except the public ones."""

    def __init__(self, app: ASGIApp, token: str, public_paths: Collection[str]) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()
        self._public = frozenset(public_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self._public:
            await self._app(scope, receive, send)
            return
        given = next((value for name, value in scope["headers"] if name == b"authorization"), b"")
        # Constant time, so response timing does not reveal how much of a guess was right.
        if hmac.compare_digest(given, self._expected):
            await self._app(scope, receive, send)
            return
        await send_jsonrpc_error(
            send, 401, INVALID_REQUEST, "Authentication required.", [(b"www-authenticate", b"Bearer")]
        )


class RequestBody:
    """Refuse bodies over `max_bytes` (declared by Content-Length or streamed) and non-UTF-8 ones.

    The body is read here, up to the limit, and replayed to the app: an oversized streamed body
    is refused after `max_bytes + 1` bytes instead of being buffered whole. JSON-RPC bodies are
    UTF-8 JSON; other bytes would otherwise reach the SDK's decoder and come back as an internal
    error quoting the codec, instead of the parse error they are.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self._app = app
        self._max = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        declared = next((value for name, value in scope["headers"] if name == b"content-length"), None)
        if declared is not None:
            if not declared.isdigit():
                await send_jsonrpc_error(send, 400, INVALID_REQUEST, "Invalid Content-Length.")
                return
            if int(declared) > self._max:
                await self._too_large(send)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._max:
                await self._too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            # 200 like the SDK's own parse errors: the HTTP exchange worked, the JSON-RPC did not.
            await send_jsonrpc_error(send, 200, PARSE_ERROR, "The request body is not UTF-8.")
            return
        await self._app(scope, _replay(body, receive), send)

    async def _too_large(self, send: Send) -> None:
        await send_jsonrpc_error(send, 413, INVALID_REQUEST, f"Request body larger than {self._max} bytes.")


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
