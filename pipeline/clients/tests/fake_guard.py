"""A tiny loopback HTTP server that answers like a broken guard: garbage, errors, slowly, or not at all."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

REASONS = {200: "OK", 401: "Unauthorized", 500: "Internal Server Error", 503: "Service Unavailable"}


@dataclass
class Reply:
    """What to answer. `$ID` in `body` becomes the request's JSON-RPC id (so only the shape is wrong)."""

    status: int = 200
    body: str = ""
    delay_s: float = 0.0
    #: Send the body one byte at a time with this pause between bytes (a trickling server).
    trickle_s: float = 0.0
    #: Close the connection without answering.
    hang_up: bool = False


async def _read_request(reader: asyncio.StreamReader) -> dict[str, object]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    parsed = json.loads(await reader.readexactly(length))
    return parsed if isinstance(parsed, dict) else {}


@asynccontextmanager
async def fake_guard(reply: Reply) -> AsyncIterator[int]:
    """Serve `reply` to every request on a free loopback port; yields the port."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await _read_request(reader)
            if reply.hang_up:
                return
            await asyncio.sleep(reply.delay_s)
            body = reply.body.replace("$ID", json.dumps(request.get("id"))).encode()
            head = (f"HTTP/1.1 {reply.status} {REASONS[reply.status]}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
            writer.write(head)
            if reply.trickle_s:
                for byte in body:
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(reply.trickle_s)
            else:
                writer.write(body)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client gave up first: that is what the slow cases test
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()
