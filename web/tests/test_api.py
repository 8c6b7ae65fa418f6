"""HTTP behaviour of the API on a real uvicorn server: refusals, cookies, sessions, errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from db.accounts import LOGIN_FAILED
from web.http import SECURITY_HEADERS
from web.sessions import COOKIE
from web.tests.fixtures import ROOMY_LIMITS, WebServer, serve_web

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "requests.yaml").read_text(encoding="utf-8"))
CUSTOMER = "ava.chen@example.com"


def _body(case: dict[str, Any], server: WebServer) -> bytes:
    if "body_hex" in case:
        return bytes.fromhex(case["body_hex"])
    if "body_bytes" in case:
        size = case["body_bytes"]
        size = server.settings.chat_max_body_bytes + 1 if size == "over_limit" else int(size)
        padding = "x" * (size - len('{"message": ""}'))
        return json.dumps({"message": padding}).encode()
    return str(case["body"]).encode()


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), 1024):
        yield body[start:start + 1024]


def assert_safe_error(response: httpx.Response) -> None:
    """Refusals are a short JSON message: no stack trace, exception name, host or port."""
    body = response.json()
    assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"]
    for leak in ("Traceback", "Error(", "File \"", "127.0.0.1", "asyncpg", "starlette"):
        assert leak not in response.text


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_refused_requests_get_their_status(web_server: WebServer, demo_password: str,
                                                 case: dict[str, Any]) -> None:
    opened: AbstractAsyncContextManager[httpx.AsyncClient] = (
        web_server.logged_in(CUSTOMER, demo_password) if case.get("logged_in", True)
        else web_server.client(cookies={COOKIE: case["cookie"]} if "cookie" in case else None))
    body = _body(case, web_server)
    headers = {"content-type": case["content_type"]} if "content_type" in case else {}
    async with opened as client:
        content: bytes | AsyncIterator[bytes] = _chunks(body) if case.get("chunked") else body
        response = await client.post(case["path"], content=content, headers=headers)
    assert response.status_code == case["status"], response.text
    assert_safe_error(response)
    if case.get("chunked"):
        assert "content-length" not in response.request.headers


@pytest.mark.parametrize("password_of", ["wrong-password", "unknown-email"])
async def test_wrong_credentials_get_one_generic_message(web_server: WebServer, demo_password: str,
                                                         password_of: str) -> None:
    email, password = ((CUSTOMER, demo_password + "x") if password_of == "wrong-password"
                       else ("nobody@example.com", demo_password))
    async with web_server.client() as client:
        response = await client.post("/api/login", json={"email": email, "password": password})
    assert response.status_code == 401
    assert response.json() == {"error": LOGIN_FAILED}
    assert "set-cookie" not in response.headers


def _session_cookie(response: httpx.Response) -> Any:
    cookies = SimpleCookie()
    for header in response.headers.get_list("set-cookie"):
        cookies.load(header)
    return cookies[COOKIE]


@pytest.mark.parametrize(("proxies", "forwarded_proto", "secure"), [
    ("", None, False),
    ("127.0.0.1", "https", True),  # behind a TLS-terminating proxy on loopback, listed in FORWARDED_ALLOW_IPS
    ("", "https", False),  # the header from a client that is not a listed proxy counts for nothing
])
async def test_session_cookie_flags(desk_settings: Any, desk: Any, demo_password: str, proxies: str,
                                    forwarded_proto: str | None, secure: bool) -> None:
    headers = {"x-forwarded-proto": forwarded_proto} if forwarded_proto else {}
    async with serve_web(desk_settings, desk, forwarded_allow_ips=proxies, **ROOMY_LIMITS) as server, \
            server.client() as client:
        response = await client.post("/api/login", json={"email": CUSTOMER.upper(), "password": demo_password},
                                     headers=headers)
    assert response.status_code == 200
    assert response.json()["email"] == CUSTOMER
    cookie = _session_cookie(response)
    assert cookie["httponly"] is True
    assert cookie["samesite"].lower() == "strict"
    assert bool(cookie["secure"]) is secure
    assert cookie["path"] == "/"
    assert int(cookie["max-age"]) == server.settings.session_ttl_s


async def test_logout_revokes_the_session_server_side(web_server: WebServer, demo_password: str) -> None:
    async with web_server.logged_in(CUSTOMER, demo_password) as client:
        token = client.cookies[COOKIE]
        assert (await client.get("/api/me")).json()["email"] == CUSTOMER
        assert (await client.post("/api/logout")).status_code == 204
    # Replaying the old cookie must not work: the session is revoked, not only forgotten by the browser.
    async with web_server.client(cookies={COOKIE: token}) as replay:
        response = await replay.get("/api/me")
        assert response.status_code == 401
        chat = await replay.post("/api/chat", json={"message": "Where is my order?"})
        assert chat.status_code == 401


async def test_sessions_expire(desk_settings: Any, desk: Any, demo_password: str) -> None:
    async with serve_web(desk_settings, desk, session_ttl_s=1, **ROOMY_LIMITS) as server, \
            server.logged_in(CUSTOMER, demo_password) as client:
        assert (await client.get("/api/me")).status_code == 200
        await asyncio.sleep(1.3)
        response = await client.get("/api/me")
    assert response.status_code == 401
    assert_safe_error(response)


@pytest.mark.parametrize("path", ["/", "/static/app.js", "/api/me", "/healthz", "/no-such-page"])
async def test_security_headers_on_every_response(web_server: WebServer, path: str) -> None:
    async with web_server.client() as client:
        response = await client.get(path)
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    csp = response.headers["content-security-policy"]
    assert "'unsafe-inline'" not in csp and "frame-ancestors 'none'" in csp


async def test_unknown_paths_and_methods_answer_json(web_server: WebServer) -> None:
    async with web_server.client() as client:
        missing = await client.get("/api/nothing")
        wrong_method = await client.get("/api/chat")
    assert missing.status_code == 404
    assert wrong_method.status_code == 405
    for response in (missing, wrong_method):
        assert_safe_error(response)


async def test_a_failing_database_gives_a_generic_500(desk_settings: Any, desk: Any, demo_password: str) -> None:
    async with serve_web(desk_settings, desk, **ROOMY_LIMITS) as server, \
            server.logged_in(CUSTOMER, demo_password) as client:
        await server.desk.pool.close()
        response = await client.get("/api/me")
    assert response.status_code == 500
    assert_safe_error(response)


async def test_a_customer_gets_no_trace_link_or_trace_endpoint(desk_settings: Any, desk: Any,
                                                               demo_password: str) -> None:
    # Even with tracing on: traces are for operators, who read them in Phoenix behind its own login.
    async with serve_web(desk_settings, desk, tracing_enabled=True, **ROOMY_LIMITS) as traced, \
            traced.logged_in(CUSTOMER, demo_password) as client:
        profile = (await client.get("/api/me")).json()
        turn = await client.post("/api/chat", json={"message": "Where is my latest order?"})
        trace_id = json.loads(turn.text.splitlines()[0])["trace_id"]
        endpoint = await client.get(f"/api/trace/{trace_id}")
        page = (await client.get("/")).text + (await client.get("/static/app.js")).text
    assert set(profile) == {"email", "full_name"}
    assert endpoint.status_code == 404
    for where in (turn.text, page):
        for link in ("/api/trace", "/redirects/traces", traced.settings.phoenix_url, f":{traced.settings.phoenix_port}",
                     "View trace"):
            assert link not in where
