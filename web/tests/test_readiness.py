"""/healthz and /readyz: each dependency reported up or down, without hosts, ports or errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from evals.loopback import refusing_port
from web.tests.fixtures import WebServer, serve_web

DEPENDENCIES = {"database", "toolbox", "judge", "masker", "memory", "phoenix"}


def _no_leaks(text: str, server: WebServer) -> None:
    settings = server.settings
    for leak in ("127.0.0.1", "localhost", "Traceback", "Error", str(settings.postgres_port),
                 str(settings.judge_port), str(settings.masker_port), str(settings.toolbox_port)):
        assert leak not in text


async def test_healthz_is_alive(web_server: WebServer) -> None:
    async with web_server.client() as client:
        response = await client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


async def test_readyz_with_everything_up(web_server: WebServer) -> None:
    async with web_server.client() as client:
        response = await client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    assert set(body["dependencies"]) == DEPENDENCIES
    # Tracing is off in the test desk: Phoenix is reported as such, everything else is up.
    assert body["dependencies"] == {**dict.fromkeys(DEPENDENCIES - {"phoenix"}, "up"), "phoenix": "disabled"}
    _no_leaks(response.text, web_server)


# One dependency pointed at a port that refuses connections (memory: the cloud backend's host).
DOWN: dict[str, dict[str, object]] = {
    "toolbox": {"toolbox_port": "free"},
    "judge": {"judge_port": "free"},
    "masker": {"masker_port": "free"},
    "memory": {"mem0_api_key": SecretStr("m0-test-key"), "mem0_host": "http://127.0.0.1:{free}"},
    "phoenix": {"tracing_enabled": True, "phoenix_port": "free"},
}


def _resolve(value: object, port: int) -> object:
    if value == "free":
        return port
    return value.format(free=port) if isinstance(value, str) else value


@pytest.mark.parametrize("down", [*DOWN, "database"])
async def test_readyz_names_the_dependency_that_is_down(desk_settings: Any, desk: Any, down: str) -> None:
    with refusing_port() as refused:
        overrides = {key: _resolve(value, refused) for key, value in DOWN.get(down, {}).items()}
        async with serve_web(desk_settings, desk, **overrides) as server:
            if down == "database":
                await server.desk.pool.close()
            async with server.client() as client:
                response = await client.get("/readyz")
    states = response.json()["dependencies"]
    assert states[down] == "down"
    others_up = DEPENDENCIES - {down, "phoenix"} - ({"memory"} if down == "database" else set())
    assert all(states[name] == "up" for name in others_up), states
    # Phoenix is observability: its absence is reported but does not make the desk unready.
    assert response.status_code == (200 if down == "phoenix" else 503)
    _no_leaks(response.text, server)
