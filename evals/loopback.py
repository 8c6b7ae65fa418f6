"""Loopback servers for tests and benchmarks, on sockets bound before anyone learns their port.

A server in this process gets a socket that is already bound and listening on 127.0.0.1:0, so no
other process can take its port between choosing it and serving on it, and a client may connect at
once (the backlog holds it until the server accepts). `serve_app` runs an ASGI app under uvicorn on
such a socket, `serve_streams` a raw asyncio handler (for replies no ASGI server would send: a
hang-up, a trickle), `refusing_port` holds a port that refuses every connection.

A server in another process (a guard, the Toolbox binary, PostgreSQL) binds its port itself, so
`free_port` can only narrow that race; its docstring says how.
"""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

HOST = "127.0.0.1"
StreamHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
#: Linux's knob; the IANA dynamic range is the default elsewhere (macOS uses it).
_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
#: Above the desk's own default ports (5000-10003) and the usual fixed ones.
_LOWEST = 20_000
_handed_out: set[int] = set()


@dataclass(frozen=True)
class Loopback:
    """Where a loopback server answers."""

    port: int

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"


@contextmanager
def listening_socket() -> Iterator[socket.socket]:
    """A TCP socket bound to a port the kernel picks on 127.0.0.1, already listening; closed on exit."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As asyncio and uvicorn bind their own: the connections it leaves in TIME_WAIT do not
        # keep a later server off the port (Linux wants the option on both sockets).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, 0))
        sock.listen(128)
        yield sock


def port_of(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])


class _Server(uvicorn.Server):
    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        # Ctrl-C belongs to the test runner or benchmark, not to a server running inside it.
        yield


@asynccontextmanager
async def serve_uvicorn(config: uvicorn.Config, sock: socket.socket) -> AsyncIterator[Loopback]:
    """Serve `config` on `sock` (from `listening_socket`) until the block ends; its host and port are ignored."""
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("uvicorn stopped before it started")
        await asyncio.sleep(0.01)
    try:
        yield Loopback(port_of(sock))
    finally:
        server.should_exit = True
        await task


@asynccontextmanager
async def serve_app(app: ASGIApp) -> AsyncIterator[Loopback]:
    """Serve `app` with uvicorn on a fresh loopback port (no lifespan, warnings only)."""
    with listening_socket() as sock:
        async with serve_uvicorn(uvicorn.Config(app, log_level="warning", lifespan="off"), sock) as where:
            yield where


@asynccontextmanager
async def serve_streams(handler: StreamHandler) -> AsyncIterator[Loopback]:
    """Call `handler` for every connection to a fresh loopback port."""
    with listening_socket() as sock:
        server = await asyncio.start_server(handler, sock=sock)
        try:
            yield Loopback(port_of(sock))
        finally:
            server.close()
            await server.wait_closed()


@contextmanager
def refusing_port() -> Iterator[int]:
    """A port where every connection is refused: bound, so no one else can serve on it, but not listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        yield port_of(sock)


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = (int(part) for part in _EPHEMERAL_RANGE.read_text().split())
    except (OSError, ValueError):
        return 49152, 65535
    return low, high


def free_port() -> int:
    """A loopback port that is free now, for a server in another process that binds it itself later.

    The kernel hands ports of its ephemeral range to any socket that connects or binds port 0, so
    one released there could be taken by any process before the server binds it. This port is
    chosen outside that range, where only a process asking for that very number can take it in
    between; and no number is handed out twice by one process (two servers of one desk never clash).
    """
    low, high = _ephemeral_range()
    outside = [*range(_LOWEST, low), *range(high + 1, 65_536)] or range(_LOWEST, 65_536)
    for _ in range(1_000):
        port = random.choice(outside)
        if port in _handed_out:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((HOST, port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise OSError("no free loopback port found outside the ephemeral range")
