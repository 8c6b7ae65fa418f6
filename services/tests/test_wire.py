"""Malformed, oversized and unauthenticated requests get JSON-RPC errors: no crash, no hang, no trace."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from services.tests.fixtures import GuardEndpoint

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "jsonrpc_errors.yaml").read_text())
HEADERS = {"A2A-Version": "1.0", "Content-Type": "application/json"}
#: Generous for loopback; a request the server forgot to answer fails the test instead of hanging it.
TIMEOUT = httpx.Timeout(10.0)


def assert_jsonrpc_error(response: httpx.Response, code: int) -> dict[str, Any]:
    assert "Traceback" not in response.text and 'File "' not in response.text
    payload = response.json()
    assert payload["jsonrpc"] == "2.0"
    assert payload["error"]["code"] == code, payload
    assert "result" not in payload
    return dict(payload)


def authorized(guard: GuardEndpoint, headers: dict[str, str] = HEADERS) -> dict[str, str]:
    return {**headers, **guard.auth}


async def post(url: str, content: bytes | AsyncIterator[bytes], headers: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
        return await http.post(url + "/", content=content, headers=headers)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
async def test_malformed_requests_get_the_right_error_code(guard_service: GuardEndpoint,
                                                           case: dict[str, Any]) -> None:
    body = bytes.fromhex(case["body_hex"]) if "body_hex" in case else case["body"].encode()
    response = await post(guard_service.url, body, authorized(guard_service))
    assert response.status_code == 200
    assert_jsonrpc_error(response, case["code"])


def send_message_body(text: str) -> bytes:
    message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": text}]}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}).encode()


def body_of_size(size: int) -> bytes:
    """A valid SendMessage request exactly `size` bytes long."""
    padding = size - len(send_message_body(""))
    body = send_message_body("a" * padding)
    assert len(body) == size
    return body


async def chunked(body: bytes, chunk: int = 4096) -> AsyncIterator[bytes]:
    for start in range(0, len(body), chunk):
        yield body[start : start + chunk]


@pytest.mark.parametrize("streamed", [False, True], ids=["content-length", "chunked"])
async def test_a_body_over_the_limit_is_refused(guard_service: GuardEndpoint, streamed: bool) -> None:
    body = body_of_size(guard_service.settings.guard_max_body_bytes + 1)
    response = await post(guard_service.url, chunked(body) if streamed else body, authorized(guard_service))
    assert response.status_code == 413
    assert_jsonrpc_error(response, -32600)


@pytest.mark.parametrize("streamed", [False, True], ids=["content-length", "chunked"])
async def test_a_body_at_the_limit_is_answered(guard_service: GuardEndpoint, streamed: bool) -> None:
    body = body_of_size(guard_service.settings.guard_max_body_bytes)
    response = await post(guard_service.url, chunked(body) if streamed else body, authorized(guard_service))
    assert response.status_code == 200
    if guard_service.name == "judge":  # read, then refused: longer than any message the desk sends
        assert_jsonrpc_error(response, -32602)
    else:
        assert "result" in response.json()


@pytest.mark.parametrize(("extra", "answered"), [(0, True), (1, False)], ids=["at-the-cap", "one-over"])
async def test_the_judge_reads_no_text_longer_than_the_desk_sends(judge_service: GuardEndpoint, extra: int,
                                                                  answered: bool) -> None:
    text = "a" * (judge_service.settings.max_message_chars + extra)
    response = await post(judge_service.url, send_message_body(text), authorized(judge_service))
    if answered:
        assert "result" in response.json()
    else:
        assert "longer than the judge accepts" in assert_jsonrpc_error(response, -32602)["error"]["message"]


async def test_sendmessage_without_the_protocol_header_is_refused(guard_service: GuardEndpoint) -> None:
    response = await post(guard_service.url, send_message_body("hello"),
                          authorized(guard_service, {"Content-Type": "application/json"}))
    assert_jsonrpc_error(response, -32009)  # A2A VersionNotSupportedError


async def test_the_service_still_answers_after_the_bad_requests(guard_service: GuardEndpoint) -> None:
    response = await post(guard_service.url, send_message_body("Where is my parcel?"), authorized(guard_service))
    assert "result" in response.json()
