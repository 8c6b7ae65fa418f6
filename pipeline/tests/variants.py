"""Variants of the real desk for the terminal-path cases: one dependency broken, slowed or scripted.

Each variant is an async context manager yielding a `Desk` that shares the session desk's real
services except the one the case is about.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from google.adk.models.base_llm import BaseLlm

from db.bootstrap import prepare_database
from db.embedded import EmbeddedPostgres
from db.tests.fixtures import pg_folder
from evals.loopback import free_port, refusing_port, serve_streams
from guards.embedding import Embedder
from guards.judge.rules import RuleSet
from pipeline.agent.actions import ActionDesk
from pipeline.agent.support import SupportAgent
from pipeline.agent.tools import desk_tools
from pipeline.clients.guards import JudgeClient, MaskerClient
from pipeline.clients.tests.fake_guard import Reply, fake_guard
from pipeline.core.settings import Settings
from pipeline.desk import Desk
from pipeline.guardrail import Guardrail
from pipeline.memory.factory import build_memory
from pipeline.models.factory import build_llm
from pipeline.tests.scripted import GarbledVerdictLlm, LoopingLlm, RefusingLlm
from toolbox.client import ToolboxGateway
from toolbox.server import ToolboxServer

Variant = Callable[[Desk, Settings, Path], AbstractAsyncContextManager[Desk]]


def _reply_with(data: dict[str, Any]) -> str:
    message = {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"data": data}]}
    return json.dumps({"jsonrpc": "2.0", "id": "$ID", "result": {"message": message}}).replace('"$ID"', "$ID")


def _rebuilt(desk: Desk, settings: Settings, **services: Any) -> Desk:
    return Desk(settings, dataclasses.replace(desk.services, **services),
                    tracer_provider=desk.tracer_provider, runlog=desk.runlog)


async def _agent_services(stack: AsyncExitStack, settings: Settings, llm: BaseLlm) -> dict[str, Any]:
    """The services an agent on `llm` brings: itself, and the confirmed writes through its Toolbox."""
    gateway = ToolboxGateway.from_settings(settings)
    await gateway.load()
    stack.push_async_callback(gateway.aclose)
    actions = ActionDesk(gateway)
    return {"agent": SupportAgent(llm, desk_tools(gateway, actions), max_output_tokens=settings.model_max_output_tokens,
                                  history_max_messages=settings.history_max_messages),
            "actions": actions}


async def _agent_with(stack: AsyncExitStack, settings: Settings, llm: BaseLlm) -> SupportAgent:
    agent: SupportAgent = (await _agent_services(stack, settings, llm))["agent"]
    return agent


@asynccontextmanager
async def plain(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    yield _rebuilt(desk, settings)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


@asynccontextmanager
async def _slow_proxy(port: int, delay_s: float) -> AsyncIterator[int]:
    """A loopback port that passes each connection on to `port` after `delay_s`: the real guard,
    answering late (its replies carry its proof, which no canned reply could)."""

    async def relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(delay_s)
        guard_reader, guard_writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.gather(_pipe(client_reader, guard_writer), _pipe(guard_reader, client_writer),
                             return_exceptions=True)

    async with serve_streams(relay) as where:
        yield where.port


@asynccontextmanager
async def slow_judge(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    """The real Judge, answering 3 s late."""
    async with _slow_proxy(settings.judge_port, delay_s=3.0) as port:
        judge = JudgeClient(settings.model_copy(update={"judge_port": port}))
        yield _rebuilt(desk, settings, judge=judge)
        await judge.aclose()


@asynccontextmanager
async def judge_garbage(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    async with fake_guard(Reply(body=_reply_with({"verdict": "probably fine", "tier": "vibes"}))) as port:
        judge = JudgeClient(settings.model_copy(update={"judge_port": port}))
        yield _rebuilt(desk, settings, judge=judge)
        await judge.aclose()


@asynccontextmanager
async def judge_down(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    with refusing_port() as port:
        judge = JudgeClient(settings.model_copy(update={"judge_port": port}))
        yield _rebuilt(desk, settings, judge=judge)
        await judge.aclose()


@asynccontextmanager
async def masker_down(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    with refusing_port() as port:
        masker = MaskerClient(settings.model_copy(update={"masker_port": port}))
        yield _rebuilt(desk, settings, masker=masker)
        await masker.aclose()


@asynccontextmanager
async def masker_hangs(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    """A Masker that takes the request and stays silent past the timeout (after any write landed)."""
    async with fake_guard(Reply(body="", delay_s=settings.masker_timeout_s + 2.0)) as port:
        masker = MaskerClient(settings.model_copy(update={"masker_port": port}))
        yield _rebuilt(desk, settings, masker=masker)
        await masker.aclose()


@asynccontextmanager
async def with_model(desk: Desk, settings: Settings, llm: BaseLlm) -> AsyncIterator[Desk]:
    """The desk with its agent on `llm` (a scripted model); everything else shared."""
    async with AsyncExitStack() as stack:
        yield _rebuilt(desk, settings, **await _agent_services(stack, settings, llm))


@asynccontextmanager
async def looping_model(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    async with AsyncExitStack() as stack:
        yield _rebuilt(desk, settings, **await _agent_services(stack, settings, LoopingLlm()))


@asynccontextmanager
async def refusing_model(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    async with AsyncExitStack() as stack:
        yield _rebuilt(desk, settings, **await _agent_services(stack, settings, RefusingLlm()))


@asynccontextmanager
async def guardrail_garbage(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    yield _rebuilt(desk, settings, guardrail=Guardrail(GarbledVerdictLlm(), RuleSet.load().fast_path))


@asynccontextmanager
async def toolbox_down(desk: Desk, settings: Settings, tmp: Path) -> AsyncIterator[Desk]:
    own = settings.model_copy(update={"toolbox_port": free_port(), "toolbox_jwks_port": free_port()})
    server = ToolboxServer(own, log_path=tmp / "toolbox.log")
    server.start()
    try:
        async with AsyncExitStack() as stack:
            agent = await _agent_services(stack, own, build_llm(own, "agent"))
            server.stop()
            yield _rebuilt(desk, own, **agent)
    finally:
        server.stop()


@asynccontextmanager
async def memory_down(desk: Desk, settings: Settings, _: Path) -> AsyncIterator[Desk]:
    with refusing_port() as port:
        memory = build_memory(settings.model_copy(update={"postgres_port": port, "memory_timeout_s": 2.0}),
                              embedder=Embedder.load())
        yield _rebuilt(desk, settings, memory=memory)
        await memory.aclose()


@asynccontextmanager
async def database_down(desk: Desk, settings: Settings, tmp: Path) -> AsyncIterator[Desk]:
    """A second, private PostgreSQL behind its own Toolbox and memory, stopped before the turn."""
    with pg_folder() as pgdata:
        async with _stopped_database(desk, settings, tmp, pgdata) as pipeline:
            yield pipeline


@asynccontextmanager
async def _stopped_database(desk: Desk, settings: Settings, tmp: Path, pgdata: Path) -> AsyncIterator[Desk]:
    own = settings.model_copy(update={"embedded_pg_dir": pgdata, "postgres_port": free_port(),
                                      "toolbox_port": free_port(), "toolbox_jwks_port": free_port(),
                                      "memory_timeout_s": 2.0})
    database = EmbeddedPostgres(own)
    await prepare_database(own)
    server = ToolboxServer(own, log_path=tmp / "toolbox.log")
    server.start()
    embedder = Embedder.load()
    try:
        async with AsyncExitStack() as stack:
            agent = await _agent_services(stack, own, build_llm(own, "agent"))
            memory = build_memory(own, embedder=embedder)
            stack.push_async_callback(memory.aclose)
            database.stop()
            yield _rebuilt(desk, own, **agent, memory=memory)
    finally:
        server.stop()
        database.stop()


VARIANTS: dict[str, Variant] = {
    "plain": plain, "slow_judge": slow_judge, "judge_garbage": judge_garbage, "judge_down": judge_down,
    "masker_down": masker_down, "masker_hangs": masker_hangs, "looping_model": looping_model,
    "refusing_model": refusing_model, "guardrail_garbage": guardrail_garbage,
    "toolbox_down": toolbox_down, "memory_down": memory_down, "database_down": database_down,
}
