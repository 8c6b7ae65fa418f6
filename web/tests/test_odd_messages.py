"""Strange strings through the real /api/chat (`cases/odd_messages.yaml`): every one gets a
well-formed NDJSON stream ending in exactly one terminal event, or a short JSON refusal; never a
5xx, a stack trace or an internal name."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pipeline import TurnEvent, parse_event
from web.chat import NDJSON
from web.tests.fixtures import WebServer
from web.tests.test_api import assert_safe_error

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "cases" / "odd_messages.yaml").read_text(encoding="utf-8"))
CUSTOMER = "hana.novak@example.com"
#: What only the server's insides would say: exception names, tracebacks, libraries, addresses.
INTERNALS = re.compile(r"Traceback|File \"|\b[A-Z]\w*(?:Error|Exception)\b|asyncpg|starlette|pydantic|uvicorn"
                       r"|127\.0\.0\.1|/work/|\.py\b")


def body(case: dict[str, Any]) -> bytes:
    """The request body, as bytes: JSON escapes (lone surrogates) must reach the server unparsed."""
    if "nest" in case:
        value = "[" * case["nest"] + "]" * case["nest"]
    elif "json" in case:
        value = case["json"]
    else:
        # Not ASCII-escaped: the 4-byte characters must count as 4 bytes against the body limit.
        value = json.dumps(case["message"] * case.get("repeat", 1), ensure_ascii=False)
    pending = f', "pending": {json.dumps(case["pending"])}' if "pending" in case else ""
    return f'{{"message": {value}{pending}}}'.encode("utf-8", "surrogatepass")


def test_every_case_is_well_formed() -> None:
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 40
    for case in CASES:
        assert sum(key in case for key in ("message", "json", "nest")) == 1, case["id"]
        assert set(case) <= {"id", "message", "json", "nest", "repeat", "pending", "status", "expect"}, case["id"]


def assert_one_turn(text: str) -> dict[str, Any]:
    """A whole turn's stream: the turn event first, seq 0.., exactly one terminal event, last."""
    assert text.endswith("\n")
    events = [parse_event(line) for line in text.splitlines()]
    assert isinstance(events[0], TurnEvent)
    assert [e.seq for e in events] == list(range(len(events)))
    assert [e.terminal for e in events].count(True) == 1 and events[-1].terminal
    assert len({e.turn_id for e in events}) == 1
    last: dict[str, Any] = json.loads(text.splitlines()[-1])
    return last


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_an_odd_message_gets_a_clean_answer(web_server: WebServer, demo_password: str,
                                                  case: dict[str, Any]) -> None:
    async with web_server.logged_in(CUSTOMER, demo_password) as client:
        response = await client.post("/api/chat", content=body(case), headers={"content-type": "application/json"})
    assert response.status_code == case.get("status", 200), response.text[:500]
    assert INTERNALS.search(response.text) is None, INTERNALS.search(response.text)
    if response.status_code != 200:
        assert_safe_error(response)
        return
    assert response.headers["content-type"].split(";")[0] == NDJSON
    last = assert_one_turn(response.text)
    assert {key: last.get(key) for key in case.get("expect", {})} == case.get("expect", {}), last
