"""The loopback helpers hold their ports: nothing else can bind them while a test uses them."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from evals import loopback
from evals.loopback import free_port, refusing_port, serve_app, serve_streams


def _bind(port: int, *, reuse: bool = False) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As servers bind: a closed connection's TIME_WAIT does not hold the port against them.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, int(reuse))
        sock.bind((loopback.HOST, port))


async def test_an_app_answers_on_a_port_no_one_else_can_take() -> None:
    app = Starlette(routes=[Route("/", lambda _: PlainTextResponse("here"))])
    async with serve_app(app) as where, httpx.AsyncClient(trust_env=False) as http:
        with pytest.raises(OSError):
            _bind(where.port)
        assert (await http.get(where.url + "/")).text == "here"


async def test_a_stream_handler_answers_and_its_port_is_released_after() -> None:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(await reader.readline())
        await writer.drain()
        writer.close()

    async with serve_streams(echo) as where:
        reader, writer = await asyncio.open_connection(loopback.HOST, where.port)
        writer.write(b"ping\n")
        assert await reader.readline() == b"ping\n"
        writer.close()
        await writer.wait_closed()
        with pytest.raises(OSError):
            _bind(where.port, reuse=True)
    _bind(where.port, reuse=True)


async def test_a_refusing_port_refuses_and_is_held() -> None:
    with refusing_port() as port:
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection(loopback.HOST, port)
        with pytest.raises(OSError):
            _bind(port)


def test_free_ports_are_outside_the_ephemeral_range_and_never_repeat() -> None:
    low, high = loopback._ephemeral_range()
    ports = [free_port() for _ in range(50)]
    assert len(set(ports)) == len(ports)
    assert not any(low <= port <= high for port in ports)
    for port in ports:
        _bind(port)  # free when handed out (nothing here took them since)
