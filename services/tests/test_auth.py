"""JSON-RPC needs the bearer derived from GUARD_TOKEN; the card says so and stays public; no token, no guard."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx
import pytest
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from pydantic import SecretStr

from evals.a2a_caller import fetch_card, sdk_send
from evals.loopback import free_port
from guards.proof import GuardKeys
from pipeline.core.errors import ConfigError
from pipeline.core.settings import Settings
from services.common import middleware
from services.masker.app import build_app
from services.tests.fixtures import GuardEndpoint, running_guard
from services.tests.sdk import sdk_http
from services.tests.test_wire import assert_jsonrpc_error, post, send_message_body

TOKEN = secrets.token_urlsafe(24)
BEARER = GuardKeys.derive(SecretStr(TOKEN)).bearer


def with_token(settings: Settings) -> Settings:
    return settings.model_copy(update={"guard_token": SecretStr(TOKEN), "masker_port": free_port()})


@pytest.fixture(scope="module")
def locked_masker(base_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GuardEndpoint]:
    with running_guard("masker", with_token(base_settings), tmp_path_factory.mktemp("locked")) as endpoint:
        yield endpoint


async def test_the_card_is_public_and_declares_the_bearer_scheme(locked_masker: GuardEndpoint) -> None:
    async with sdk_http() as http:
        card = await fetch_card(http, locked_masker.url)
    schemes = {name: scheme.http_auth_security_scheme.scheme for name, scheme in card.security_schemes.items()}
    assert list(schemes.values()) == ["Bearer"]
    assert [set(requirement.schemes) for requirement in card.security_requirements] == [set(schemes)]


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer", f"Bearer {BEARER[:-1]}", f"Bearer {BEARER}x", f"bearer{BEARER}", BEARER, f"Basic {BEARER}",
     f"Bearer {TOKEN}"],
    ids=["missing", "empty", "one-short", "one-long", "no-space", "bare", "basic", "the-token-itself"],
)
async def test_requests_without_the_exact_token_are_refused(locked_masker: GuardEndpoint,
                                                            authorization: str | None) -> None:
    headers = {"A2A-Version": "1.0", "Content-Type": "application/json"}
    if authorization is not None:
        headers["Authorization"] = authorization
    response = await post(locked_masker.url, send_message_body("jo@example.com"), headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert_jsonrpc_error(response, -32600)
    assert "[EMAIL]" not in response.text


async def test_the_sdk_client_with_the_token_is_answered(locked_masker: GuardEndpoint) -> None:
    async with sdk_http({"Authorization": f"Bearer {BEARER}"}) as http:
        data = await sdk_send(http, await fetch_card(http, locked_masker.url), "Write to jo@example.com")
    assert data[0]["text"] == "Write to [EMAIL]"


async def test_health_needs_no_token(locked_masker: GuardEndpoint) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        assert (await http.get(f"{locked_masker.url}/healthz")).json() == {"status": "ok"}


async def test_the_token_is_compared_in_constant_time(base_settings: Settings,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []

    def spy(given: bytes, expected: bytes) -> bool:
        compared.append((given, expected))
        return given == expected

    monkeypatch.setattr(middleware.hmac, "compare_digest", spy)
    app = build_app(with_token(base_settings))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://guard") as http:
        refused = await http.post("/", content=b"{}", headers={"Authorization": "Bearer guess"})
        card = await http.get(AGENT_CARD_WELL_KNOWN_PATH)
    assert refused.status_code == 401 and card.status_code == 200
    assert compared == [(b"Bearer guess", f"Bearer {BEARER}".encode())]


def test_a_guard_app_cannot_be_built_without_a_token(base_settings: Settings) -> None:
    with pytest.raises(ConfigError, match="GUARD_TOKEN is not given"):
        build_app(base_settings.model_copy(update={"guard_token": None}))
