"""/api/chat streams the pipeline's own events live, and a client that leaves cancels its turn."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from pipeline import FinalEvent, TurnEvent, parse_event
from pipeline.tests.variants import slow_judge
from web.chat import NDJSON
from web.headers import SECURITY_HEADERS
from web.tests.fixtures import ROOMY_LIMITS, WebServer, serve_web

CUSTOMER = "diego.alvarez@example.com"
#: The slow judge fake answers after 3 s; a timeout above that lets the turn finish.
PATIENT = {"judge_timeout_s": 5.0}


async def test_a_turn_streams_as_ndjson(web_server: WebServer, demo_password: str) -> None:
    async with web_server.logged_in(CUSTOMER, demo_password) as client:
        response = await client.post("/api/chat", json={"message": "Where is my latest order?"})
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == NDJSON
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    events = [parse_event(line) for line in response.text.splitlines()]
    assert isinstance(events[0], TurnEvent)
    assert [e.seq for e in events] == list(range(len(events)))
    assert isinstance(events[-1], FinalEvent) and events[-1].status == "answered"
    assert response.text.endswith("\n")


async def test_events_are_flushed_as_they_happen(desk_settings: Any, desk: Any, demo_password: str,
                                                 tmp_path: Path) -> None:
    settings = desk_settings.model_copy(update=PATIENT)
    async with slow_judge(desk, settings, tmp_path) as pipeline, \
            serve_web(settings, pipeline, **ROOMY_LIMITS) as server, \
            server.logged_in(CUSTOMER, demo_password) as client, \
            client.stream("POST", "/api/chat", json={"message": "Where is my latest order?"}) as response:
        start = time.monotonic()
        arrivals = [(time.monotonic() - start, parse_event(line)) async for line in response.aiter_lines() if line]
    first_at, first = arrivals[0]
    last_at, last = arrivals[-1]
    assert isinstance(first, TurnEvent) and first_at < 1.0
    assert isinstance(last, FinalEvent) and last_at >= 2.5  # the judge alone takes 3 s


async def test_disconnect_cancels_the_turn(desk_settings: Any, desk: Any, demo_password: str,
                                           tmp_path: Path) -> None:
    settings = desk_settings.model_copy(update=PATIENT)
    async with slow_judge(desk, settings, tmp_path) as pipeline, \
            serve_web(settings, pipeline, **ROOMY_LIMITS) as server, \
            server.logged_in(CUSTOMER, demo_password) as client:
        async with client.stream("POST", "/api/chat", json={"message": "Where is my latest order?"}) as response:
            lines = response.aiter_lines()
            first = parse_event(await anext(lines))
            # Leaving the block closes the connection while the judge is still thinking.
        assert isinstance(first, TurnEvent)
        run_log = settings.runs_dir / f"{first.turn_id}.json"
        # Polling a file the server writes: there is no event to wait on across that boundary.
        deadline = time.monotonic() + 2.5  # well before the slow judge would have answered
        while not run_log.exists() and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        assert run_log.exists(), "the turn was not cancelled when its client left"
    outcome = json.loads(run_log.read_text())["outcome"]
    assert outcome["type"] == "error" and outcome["cancelled"] is True
