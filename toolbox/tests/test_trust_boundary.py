"""The Toolbox itself refuses callers without the desk's proof: raw MCP calls to the real binary.

Each case posts JSON-RPC to `/mcp` the way any local process or web page could, with no token, a
token signed by another key, an expired one, or one for another audience: no row comes back and
nothing reaches actions_log. A foreign `Host` is refused (403); a foreign `Origin` gets no CORS
grant, so a browser never attaches a token, and without one nothing comes back.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import ECKey

from db.connect import connection
from pipeline.core.settings import Settings
from toolbox.identity import AUDIENCE, AUTH_SERVICE, TokenIssuer, load_or_create_key, public_jwks
from toolbox.jwks import issuer_url
from toolbox.server import ToolboxServer

VICTIM = "ava.chen@example.com"
ATTACKER = "ben.okafor@example.com"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


async def _mcp(settings: Settings, method: str, params: dict[str, Any], **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(trust_env=False, timeout=5.0) as http:
        return await http.post(settings.toolbox_url + "/mcp", headers={**MCP_HEADERS, **headers},
                               json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})


async def _call(settings: Settings, tool: str, args: dict[str, Any], token: str | None) -> str:
    headers = {f"{AUTH_SERVICE}_token": token} if token is not None else {}
    response = await _mcp(settings, "tools/call", {"name": tool, "arguments": args}, **headers)
    assert response.status_code == 200, response.text
    return response.text


def _issuer(settings: Settings) -> TokenIssuer:
    return TokenIssuer.from_file(settings.toolbox_signing_key_file, issuer=issuer_url(settings.toolbox_jwks_port),
                                 ttl_s=settings.toolbox_token_ttl_s)


def _claims(settings: Settings, email: str) -> dict[str, Any]:
    now = int(time.time())
    return {"iss": issuer_url(settings.toolbox_jwks_port), "aud": AUDIENCE, "email": email, "iat": now, "exp": now + 30}


def _forged(settings: Settings, email: str) -> str:
    """Same claims and key id as the desk's, signed by a key the desk never published."""
    desk_kid = load_or_create_key(settings.toolbox_signing_key_file).kid
    assert desk_kid is not None
    other = ECKey.generate_key("P-256", parameters={"alg": "ES256", "kid": desk_kid}, private=True)
    return jwt.encode({"alg": "ES256", "kid": desk_kid}, _claims(settings, email), other)


def _expired(settings: Settings, email: str) -> str:
    return _issuer(settings).issue(email, now=time.time() - 3600)


def _wrong_audience(settings: Settings, email: str) -> str:
    key = load_or_create_key(settings.toolbox_signing_key_file)
    claims = {**_claims(settings, email), "aud": "another-service"}
    return jwt.encode({"alg": "ES256", "kid": key.kid}, claims, key)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unsigned(settings: Settings, email: str) -> str:
    """`alg: none`: the desk's claims with no signature at all."""
    kid = load_or_create_key(settings.toolbox_signing_key_file).kid
    header = _b64(json.dumps({"alg": "none", "kid": kid, "typ": "JWT"}).encode())
    return f"{header}.{_b64(json.dumps(_claims(settings, email)).encode())}."


def _hmac_with_the_public_key(settings: Settings, email: str) -> str:
    """Algorithm confusion: HS256 'signed' with the published public key as the secret."""
    key = load_or_create_key(settings.toolbox_signing_key_file)
    signing_input = ".".join((_b64(json.dumps({"alg": "HS256", "kid": key.kid, "typ": "JWT"}).encode()),
                              _b64(json.dumps(_claims(settings, email)).encode())))
    secret = json.dumps(public_jwks(key)["keys"][0]).encode()
    return f"{signing_input}.{_b64(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())}"


BAD_TOKENS = {"none": None, "forged": _forged, "expired": _expired, "wrong-audience": _wrong_audience,
              "alg-none": _unsigned, "hs256-public-key": _hmac_with_the_public_key}


async def _victim_orders(settings: Settings) -> list[str]:
    async with connection(settings) as conn:
        rows = await conn.fetch("SELECT order_id FROM customer_orders WHERE customer_email = $1", VICTIM)
    return [r[0] for r in rows]


async def _log_count(settings: Settings) -> int:
    async with connection(settings) as conn:
        return int(await conn.fetchval("SELECT count(*) FROM actions_log"))


def _token(kind: str, settings: Settings) -> str | None:
    make = BAD_TOKENS[kind]
    return None if make is None else make(settings, VICTIM)


@pytest.mark.parametrize("kind", list(BAD_TOKENS))
async def test_reads_without_the_desks_proof_return_no_row(desk_settings: Settings, toolbox_server: ToolboxServer,
                                                           kind: str) -> None:
    orders = await _victim_orders(desk_settings)
    token = _token(kind, desk_settings)
    for tool, args in (("find-customer-orders", {"customer_email": VICTIM}),
                       ("get-order-status", {"order_id": orders[0], "customer_email": VICTIM})):
        text = await _call(desk_settings, tool, args, token)
        assert "missing or invalid authentication header" in text
        assert not any(order_id in text for order_id in orders)


@pytest.mark.parametrize("kind", list(BAD_TOKENS))
async def test_writes_without_the_desks_proof_insert_nothing(desk_settings: Settings, toolbox_server: ToolboxServer,
                                                             kind: str) -> None:
    order_id = (await _victim_orders(desk_settings))[0]
    before = await _log_count(desk_settings)
    text = await _call(desk_settings, "action-log", {
        "customer_email": VICTIM, "order_id": order_id, "action": "cancel_request", "note": "cancel it",
        "items": "", "new_item": "", "new_address": "", "idempotency_key": f"direct-{kind}"},
        _token(kind, desk_settings))
    assert "missing or invalid authentication header" in text and order_id not in text
    assert await _log_count(desk_settings) == before


async def test_the_token_decides_whose_rows_not_the_arguments(desk_settings: Settings,
                                                              toolbox_server: ToolboxServer) -> None:
    """The control for the cases above: a desk token works, and only for the email it names."""
    orders = await _victim_orders(desk_settings)
    as_victim = await _call(desk_settings, "find-customer-orders", {}, _issuer(desk_settings).issue(VICTIM))
    assert all(order_id in as_victim for order_id in orders)
    as_attacker = await _call(desk_settings, "find-customer-orders", {"customer_email": VICTIM},
                              _issuer(desk_settings).issue(ATTACKER))
    assert not any(order_id in as_attacker for order_id in orders)


@pytest.mark.parametrize("host", ["evil.example", "localhost.evil.example:5000", "localhost"])
async def test_a_foreign_host_is_refused_even_with_a_valid_token(desk_settings: Settings,
                                                                  toolbox_server: ToolboxServer, host: str) -> None:
    """DNS rebinding: the page's own name, now pointing at 127.0.0.1, arrives as the Host."""
    orders = await _victim_orders(desk_settings)
    response = await _mcp(desk_settings, "tools/call", {"name": "find-customer-orders", "arguments": {}},
                          Host=host, **{f"{AUTH_SERVICE}_token": _issuer(desk_settings).issue(VICTIM)})
    assert response.status_code == 403
    assert not any(order_id in response.text for order_id in orders)


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://localhost:8000"])
async def test_a_foreign_origin_gets_no_cors_grant_and_its_simple_requests_no_row(
        desk_settings: Settings, toolbox_server: ToolboxServer, origin: str) -> None:
    """What a browser enforces: no grant in the preflight, so no token header is ever sent cross-origin;
    the 'simple' request it may send without a preflight carries no token and gets nothing."""
    async with httpx.AsyncClient(trust_env=False, timeout=5.0) as http:
        preflight = await http.options(desk_settings.toolbox_url + "/mcp", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": f"content-type,{AUTH_SERVICE}_token"})
        simple = await http.post(desk_settings.toolbox_url + "/mcp", headers={"Origin": origin,
                                                                             "Content-Type": "text/plain"},
                                 content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                                     "name": "find-customer-orders", "arguments": {"customer_email": VICTIM}}}))
    assert "access-control-allow-origin" not in preflight.headers
    assert "access-control-allow-origin" not in simple.headers
    assert not any(order_id in simple.text for order_id in await _victim_orders(desk_settings))


async def test_the_desks_own_origin_is_granted(desk_settings: Settings, toolbox_server: ToolboxServer) -> None:
    """The control for the case above: the check can tell origins apart."""
    async with httpx.AsyncClient(trust_env=False, timeout=5.0) as http:
        preflight = await http.options(desk_settings.toolbox_url + "/mcp", headers={
            "Origin": desk_settings.toolbox_url, "Access-Control-Request-Method": "POST"})
    assert preflight.headers.get("access-control-allow-origin") == desk_settings.toolbox_url
