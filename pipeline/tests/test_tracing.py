"""Traces leave the process for a real Phoenix that only operators can read, and carry no customer data."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic import SecretStr

from cli.envfile import generated_secret
from db.connect import connection
from evals.harness import free_port
from pipeline.core.settings import Settings
from pipeline.desk import CustomerSession, Desk
from pipeline.events import Event, FinalEvent, TurnEvent
from pipeline.tests.streams import drain
from pipeline.tracescrub import ScrubbingProcessor
from services.launch import RunningService, start_process, stop_service
from services.phoenix import READY_TIMEOUT_S, SERVE, phoenix_environment, start_phoenix
from services.phoenix.admin import ADMIN_EMAIL, PHOENIX_DEFAULT_PASSWORD

CUSTOMER = "ava.chen@example.com"
ORDER = "ORD-10002"
STEPS = {"turn", "step.sanitizer", "step.judge", "step.guardrail", "step.recall", "step.agent", "step.masker"}


@pytest.fixture(scope="module")
def phoenix(desk_settings: Settings,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, RunningService]]:
    root: Path = tmp_path_factory.mktemp("phoenix")
    settings = desk_settings.model_copy(update={
        "tracing_enabled": True, "phoenix_port": free_port(), "phoenix_working_dir": root / "data",
        "phoenix_project": "supportdesk-test", "phoenix_secret": _secret(), "phoenix_admin_secret": _secret(),
        "phoenix_default_admin_initial_password": _secret()})
    service = start_phoenix(settings, log_path=root / "phoenix.log")
    yield settings, service
    stop_service(service)


def _secret() -> SecretStr:
    return SecretStr(generated_secret("PHOENIX_SECRET"))  # as `make up` generates them: Phoenix must accept it


def _operator(settings: Settings) -> httpx.AsyncClient:
    assert settings.phoenix_admin_secret is not None
    token = settings.phoenix_admin_secret.get_secret_value()
    return httpx.AsyncClient(base_url=settings.phoenix_url, timeout=5, trust_env=False,
                             headers={"Authorization": f"Bearer {token}"})


async def _spans_of(settings: Settings, trace_id: str, until: set[str]) -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = []
    async with _operator(settings) as http:
        for _ in range(60):
            reply = await http.get(f"/v1/projects/{settings.phoenix_project}/spans", params={"limit": 1000})
            if reply.status_code != 404:  # 404: the project appears with its first span
                reply.raise_for_status()
                spans = [s for s in reply.json()["data"] if s["context"]["trace_id"] == trace_id]
                if until <= {s["name"] for s in spans}:
                    break
            await asyncio.sleep(0.5)
    return spans


@pytest.fixture()
async def planted_address(desk_settings: Settings) -> AsyncIterator[str]:
    """A delivery address found nowhere else, on the customer's order for the length of one test."""
    address = f"{secrets.randbelow(900) + 100} Quillfeather Row, Apt {secrets.token_hex(2).upper()}, Zanesville, OH"
    async with connection(desk_settings) as conn:
        original = await conn.fetchval("UPDATE customer_orders c SET delivery_address = $1 FROM customer_orders o "
                                       "WHERE c.order_id = o.order_id AND c.order_id = $2 AND c.customer_email = $3 "
                                       "RETURNING o.delivery_address", address, ORDER, CUSTOMER)
        assert original is not None
        try:
            yield address
        finally:
            await conn.execute("UPDATE customer_orders SET delivery_address = $1 WHERE order_id = $2", original, ORDER)


async def _traced_turn(desk: Desk, settings: Settings, message: str) -> tuple[list[Event], list[dict[str, Any]]]:
    traced = Desk(settings, desk.services)
    try:
        events = await drain(traced.run_turn(CustomerSession(CUSTOMER), message))
        traced.tracer_provider.force_flush()
    finally:
        traced.tracer_provider.shutdown()
    assert isinstance(events[0], TurnEvent)
    return events, await _spans_of(settings, events[0].trace_id, STEPS | {"execute_tool get-order-status"})


async def test_phoenix_refuses_requests_without_a_login(phoenix: tuple[Settings, RunningService]) -> None:
    settings, _ = phoenix
    async with httpx.AsyncClient(base_url=settings.phoenix_url, timeout=5, trust_env=False) as anonymous:
        projects = await anonymous.get("/v1/projects")
        spans = await anonymous.get(f"/v1/projects/{settings.phoenix_project}/spans")
        forged = await anonymous.get("/v1/projects",
                                     headers={"Authorization": f"Bearer {_secret().get_secret_value()}"})
        export = await anonymous.post("/v1/traces", content=b"", headers={"Content-Type": "application/x-protobuf"})
    assert [r.status_code for r in (projects, spans, forged, export)] == [401, 401, 401, 401]
    async with _operator(settings) as operator:
        assert (await operator.get("/v1/projects")).status_code == 200


async def test_operators_log_in_with_the_generated_password_not_phoenix_s_default(
        phoenix: tuple[Settings, RunningService]) -> None:
    settings, _ = phoenix
    assert settings.phoenix_default_admin_initial_password is not None
    password = settings.phoenix_default_admin_initial_password.get_secret_value()
    async with httpx.AsyncClient(base_url=settings.phoenix_url, timeout=5, trust_env=False) as browser:
        default = await browser.post("/auth/login", json={"email": "admin@localhost", "password": "admin"})
        generated = await browser.post("/auth/login", json={"email": "admin@localhost", "password": password})
        projects = await browser.get("/v1/projects")  # with the session cookie just set
    assert (default.status_code, generated.status_code, projects.status_code) == (401, 204, 200)


def _listening(pid: int) -> set[tuple[str, int]]:
    """(address, port) of every TCP socket process `pid` listens on, from /proc."""
    fds = Path(f"/proc/{pid}/fd")
    inodes = {link[8:-1] for fd in fds.iterdir() if (link := os.readlink(fd)).startswith("socket:[")}
    found = set()
    for table, width in (("tcp", 8), ("tcp6", 32)):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and inode in inodes:  # 0A: LISTEN
                address, port = local.split(":")
                loopback = address in ("0100007F", "00000000000000000000000001000000")
                found.add(("loopback" if loopback else address.rjust(width, "0"), int(port, 16)))
    return found


def test_phoenix_listens_on_its_loopback_http_port_only(phoenix: tuple[Settings, RunningService]) -> None:
    settings, service = phoenix
    # No OTLP gRPC receiver (it would bind every interface on 4317): the HTTP port, on loopback, is all.
    assert _listening(service.process.pid) == {("loopback", settings.phoenix_port)}


async def test_a_turn_leaves_operator_facts_and_no_customer_data_in_phoenix(
        desk: Desk, phoenix: tuple[Settings, RunningService], planted_address: str) -> None:
    settings, _ = phoenix
    message = f"Where is {ORDER} being delivered?"  # plain, so no guard's mood decides whether the test runs
    events, spans = await _traced_turn(desk, settings, message)
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.status == "answered", final
    assert planted_address not in final.answer  # the Masker replaced it for the customer

    names = {s["name"] for s in spans}
    assert names >= STEPS
    # What operators read: verdicts (step status), timings, tool names and row counts.
    by_name = {s["name"]: s for s in spans}
    assert by_name["step.judge"]["attributes"]["supportdesk.step.status"] == "ok"
    assert by_name["turn"]["attributes"]["supportdesk.outcome"] == "answered"
    tool = by_name["execute_tool get-order-status"]["attributes"]
    assert tool["tool.name"] == "get-order-status" and tool["supportdesk.tool.rows"] == 1
    assert all(s["start_time"] and s["end_time"] for s in spans)

    everything = json.dumps(spans)
    answer_text = final.answer.split("[ADDRESS]")[0].strip()
    for secret in (planted_address, "Quillfeather", message, "being delivered", answer_text, CUSTOMER):
        assert secret not in everything, secret


def test_the_scrubber_keeps_names_statuses_and_counts_and_drops_the_rest() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(ScrubbingProcessor(SimpleSpanProcessor(exporter)))
    secret = "14 Elm Street, Springfield"
    rows = json.dumps({"response": {"rows": [{"delivery_address": secret}], "row_count": 1}})
    with provider.get_tracer("test").start_as_current_span("execute_tool get-order-status", attributes={
            "openinference.span.kind": "TOOL", "tool.name": "get-order-status", "output.value": rows,
            "tool.parameters": json.dumps({"order_id": secret}), "user.id": CUSTOMER, "session.id": "customer-1"}):
        pass
    with pytest.raises(ValueError), provider.get_tracer("test").start_as_current_span("turn") as span:
        span.add_event("note", {"text": secret, "exception.type": "ValueError"})
        raise ValueError(f"no order at {secret}")
    tool, turn = exporter.get_finished_spans()
    assert dict(tool.attributes or {}) == {"openinference.span.kind": "TOOL", "tool.name": "get-order-status",
                                           "supportdesk.tool.rows": 1}
    assert turn.status.status_code is StatusCode.ERROR and turn.status.description is None
    assert [(e.name, dict(e.attributes or {})) for e in turn.events] == [
        ("note", {"exception.type": "ValueError"}), ("exception", {"exception.type": "ValueError"})]
    provider.shutdown()


def test_a_phoenix_folder_from_before_authentication_loses_its_default_admin_password(
        desk_settings: Settings, tmp_path: Path) -> None:
    settings = desk_settings.model_copy(update={
        "phoenix_port": free_port(), "phoenix_working_dir": tmp_path / "data", "phoenix_secret": _secret(),
        "phoenix_admin_secret": _secret(), "phoenix_default_admin_initial_password": _secret()})
    assert settings.phoenix_default_admin_initial_password is not None
    settings.phoenix_working_dir.mkdir()
    # As the desk ran Phoenix before: no authentication, so Phoenix created admin@localhost / admin.
    old_env = {**phoenix_environment(settings, os.environ), "PHOENIX_ENABLE_AUTH": "false"}
    del old_env["PHOENIX_DEFAULT_ADMIN_INITIAL_PASSWORD"]
    python = str(settings.phoenix_venv / "bin" / "python")
    stop_service(start_process("phoenix", [python, "-I", str(SERVE)], url=settings.phoenix_url, env=old_env,
                               timeout_s=READY_TIMEOUT_S, log_path=tmp_path / "old.log"))
    service = start_phoenix(settings, log_path=tmp_path / "phoenix.log")
    try:
        with httpx.Client(base_url=settings.phoenix_url, timeout=10, trust_env=False) as browser:
            default = browser.post("/auth/login", json={"email": ADMIN_EMAIL, "password": PHOENIX_DEFAULT_PASSWORD})
            ours = browser.post("/auth/login", json={
                "email": ADMIN_EMAIL, "password": settings.phoenix_default_admin_initial_password.get_secret_value()})
    finally:
        stop_service(service)
    assert (default.status_code, ours.status_code) == (401, 204)
