"""Traces leave the process: a turn's spans are readable from a real Phoenix afterwards."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from evals.harness import free_port
from pipeline.desk import CustomerSession, Pipeline
from pipeline.events import TurnEvent
from pipeline.settings import Settings
from pipeline.tests.streams import drain
from pipeline.tracing import trace_url
from services.launch import stop_service
from services.phoenix import start_phoenix


@pytest.fixture(scope="module")
def traced_settings(desk_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    root: Path = tmp_path_factory.mktemp("phoenix")
    settings = desk_settings.model_copy(update={
        "tracing_enabled": True, "phoenix_port": free_port(), "phoenix_grpc_port": free_port(),
        "phoenix_working_dir": root / "data", "phoenix_project": "supportdesk-test"})
    phoenix = start_phoenix(settings, log_path=root / "phoenix.log")
    yield settings
    stop_service(phoenix)


async def _spans(settings: Settings) -> list[dict]:
    async with httpx.AsyncClient(timeout=5) as http:
        reply = await http.get(f"{settings.phoenix_url}/v1/projects/{settings.phoenix_project}/spans",
                               params={"limit": 1000})
    return reply.json().get("data", []) if reply.status_code == 200 else []


async def test_a_turn_is_traced_in_phoenix_with_a_span_per_step(desk: Pipeline, traced_settings: Settings) -> None:
    traced = Pipeline(traced_settings, desk.services)
    events = await drain(traced.run_turn(CustomerSession("ava.chen@example.com"), "What's the status of ORD-10002?"))
    assert isinstance(events[0], TurnEvent)
    trace_id = events[0].trace_id
    traced.tracer_provider.force_flush()
    names: set[str] = set()
    for _ in range(60):
        names = {s["name"] for s in await _spans(traced_settings) if s["context"]["trace_id"] == trace_id}
        if {"turn", "step.agent"} <= names:
            break
        await asyncio.sleep(0.5)
    assert {"turn", "step.sanitizer", "step.judge", "step.guardrail", "step.recall", "step.agent",
            "step.masker"} <= names
    async with httpx.AsyncClient() as http:
        reply = await http.get(trace_url(traced_settings, trace_id))
    assert reply.status_code in (200, 302, 307)
    traced.tracer_provider.shutdown()
