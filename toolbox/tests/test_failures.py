"""Toolbox or PostgreSQL unreachable: typed errors within the timeout, never a silent empty result."""

from __future__ import annotations

import socket
import time

import pytest

from db.connect import ensure_database
from db.embedded import EmbeddedPostgres
from db.migrate import apply_migrations
from db.roles import provision_roles
from evals.harness import free_port
from pipeline.core.errors import ToolboxError, ToolboxUnavailable
from pipeline.core.settings import Settings
from toolbox.client import ToolboxGateway
from toolbox.results import parse_result
from toolbox.scope import ToolScope, bound_to
from toolbox.server import ToolboxServer


async def test_unreachable_toolbox_raises_within_timeout(base_settings: Settings, unused_port: int) -> None:
    client = ToolboxGateway.from_settings(base_settings.model_copy(
        update={"toolbox_port": unused_port, "toolbox_timeout_s": 1.0}))
    started = time.monotonic()
    with pytest.raises(ToolboxUnavailable):
        await client.load()
    assert time.monotonic() - started < 2.0


def test_toolbox_does_not_start_when_its_jwks_port_is_taken(base_settings: Settings) -> None:
    """Whatever holds that port would publish the keys the Toolbox trusts: the desk stops instead."""
    settings = base_settings.model_copy(update={"toolbox_jwks_port": free_port()})  # not the session desk's
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", settings.toolbox_jwks_port))
        squatter.listen()
        server = ToolboxServer(settings)
        with pytest.raises(ToolboxUnavailable, match="TOOLBOX_JWKS_PORT"):
            server.start()
    assert server.process is None, "the binary was never started"


async def test_call_outside_a_session_is_refused(gateway: ToolboxGateway) -> None:
    with pytest.raises(ToolboxError, match="outside a bound customer session"):
        await gateway.call("find-customer-orders")


async def test_postgres_down_behind_a_running_toolbox(base_settings: Settings, tmp_path) -> None:
    settings = base_settings.model_copy(update={
        "embedded_pg_dir": tmp_path / "pg", "postgres_port": free_port(), "toolbox_port": free_port(),
        "toolbox_jwks_port": free_port(),
        "toolbox_timeout_s": 3.0})
    database = EmbeddedPostgres(settings)
    database.start()
    server = ToolboxServer(settings, log_path=tmp_path / "toolbox.log")
    try:
        await ensure_database(settings)
        apply_migrations(settings)
        await provision_roles(settings)
        server.start()
        client = ToolboxGateway.from_settings(settings)
        await client.load()
        database.stop()
        started = time.monotonic()
        with bound_to(ToolScope("ava.chen@example.com", "turn-db-down")), pytest.raises(ToolboxError):
            await client.call("find-customer-orders")
        assert time.monotonic() - started < 4.0
        await client.aclose()
    finally:
        server.stop()
        database.stop()


@pytest.mark.parametrize(("text", "rows"), [
    ("null", 0), ('{"order_id": "ORD-10001"}', 1), ('[{"a": 1}, {"a": 2}]', 2), ("[]", 0)])
def test_every_result_shape_parses(text: str, rows: int) -> None:
    assert parse_result("t", text).row_count == rows


@pytest.mark.parametrize("text", [
    'error processing request: ERROR: relation "x" does not exist (SQLSTATE 42P01)',
    "provided parameters were invalid", "42", '"a string"', "[1, 2]"])
def test_error_and_odd_results_raise(text: str) -> None:
    with pytest.raises(ToolboxError):
        parse_result("t", text)
