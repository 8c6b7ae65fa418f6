"""A raw loopback HTTP server that answers like a broken guard: garbage, errors, slowly, or not at all.

Raw streams, not an ASGI app: no ASGI server would hang up without an answer or trickle a body.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from evals.loopback import serve_streams

#: Makes the `proof` of a reply: (the parsed request, the reply's data part) -> proof.
Signer = Callable[[dict[str, Any], dict[str, Any]], str]

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
    #: Add a `proof` to the (one) data part of `body`, as a guard or an impostor would.
    sign: Signer | None = None
    #: Every request received, parsed, and its headers (lower-cased names).
    seen: list[tuple[dict[str, str], dict[str, Any]]] | None = None


def _signed(body: str, request: dict[str, Any], sign: Signer) -> str:
    reply = json.loads(body)
    data = reply["result"]["message"]["parts"][0]["data"]
    data["proof"] = sign(request, data)
    return json.dumps(reply)


async def _read_request(reader: asyncio.StreamReader) -> tuple[dict[str, str], dict[str, Any]]:
    head = await reader.readuntil(b"\r\n\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in
               (line.decode("latin-1").partition(":") for line in head.split(b"\r\n")[1:] if b":" in line)}
    parsed = json.loads(await reader.readexactly(int(headers["content-length"])))
    return headers, parsed if isinstance(parsed, dict) else {}


@asynccontextmanager
async def fake_guard(reply: Reply) -> AsyncIterator[int]:
    """Serve `reply` to every request on a free loopback port; yields the port."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            headers, request = await _read_request(reader)
            if reply.seen is not None:
                reply.seen.append((headers, request))
            if reply.hang_up:
                return
            await asyncio.sleep(reply.delay_s)
            text = reply.body.replace("$ID", json.dumps(request.get("id")))
            body = (_signed(text, request, reply.sign) if reply.sign else text).encode()
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

    async with serve_streams(answer) as where:
        yield where.port
