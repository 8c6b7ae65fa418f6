"""Both guards speak A2A as a2a-sdk's own client expects: card, 1.0 `SendMessage`, 0.3 `message/send`."""

from __future__ import annotations

import httpx
import pytest
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from pydantic import BaseModel

from evals.a2a_caller import fetch_card, sdk_send
from guards.schema import JudgeReply, MaskResult
from services.common.app import LEGACY_CARD_PATH
from services.tests.fixtures import GuardEndpoint
from services.tests.sdk import only_version, sdk_http, verified

REPLY_MODELS: dict[str, type[BaseModel]] = {"judge": JudgeReply, "masker": MaskResult}
TEXT = "Hello, could you tell me when order 10042 will arrive?"


@pytest.mark.parametrize("path", [AGENT_CARD_WELL_KNOWN_PATH, LEGACY_CARD_PATH])
async def test_the_card_is_served_at_both_well_known_paths(guard_service: GuardEndpoint, path: str) -> None:
    async with sdk_http() as http:
        card = await fetch_card(http, guard_service.url, path)
    assert {(i.protocol_version, i.url) for i in card.supported_interfaces} == {
        ("1.0", guard_service.url + "/"), ("0.3", guard_service.url + "/")
    }
    assert not card.capabilities.streaming
    assert len(card.security_requirements) == 1  # every guard requires the bearer


@pytest.mark.parametrize(("version", "method"), [("1.0", "SendMessage"), ("0.3", "message/send")])
async def test_the_sdk_client_gets_one_valid_data_part(guard_service: GuardEndpoint, version: str,
                                                      method: str) -> None:
    async with sdk_http(guard_service.auth) as http:
        card = only_version(await fetch_card(http, guard_service.url), version)
        data = await sdk_send(http, card, TEXT)
        assert http.methods == [method]
    assert len(data) == 1
    verified(guard_service, TEXT, data[0], REPLY_MODELS[guard_service.name])


async def test_the_verdict_never_echoes_the_message(judge_service: GuardEndpoint) -> None:
    marker = "Quentin Zebrafish-Oyelaran"
    text = f"Hi, I am {marker}. {TEXT}"
    async with sdk_http(judge_service.auth) as http:
        data = await sdk_send(http, await fetch_card(http, judge_service.url), text)
    assert marker.lower() not in verified(judge_service, text, data[0], JudgeReply).reason.lower()


async def test_healthz_says_ok_and_nothing_else(guard_service: GuardEndpoint) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        response = await http.get(f"{guard_service.url}/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "server" not in response.headers
