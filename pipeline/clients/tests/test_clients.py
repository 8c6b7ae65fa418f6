"""The pipeline's clients against the REAL guard services over loopback."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from pydantic import SecretStr

from evals.guard_cases import judge_cases, masker_cases
from evals.loopback import free_port
from guards.judge import JudgeEngine, RuleSet, RulesOnly
from guards.masker import Masker
from pipeline.clients import JudgeClient, MaskerClient
from pipeline.core import errors
from pipeline.core.settings import Settings
from services.tests.fixtures import GuardEndpoint, running_guard

DETECT = masker_cases("detect.yaml")
DESK_MESSAGES = [case["text"] for case in judge_cases("attacks.yaml") + judge_cases("legit.yaml")]


#: Rule decisions only: the comparison below covers messages the rules decide.
RULE_ENGINE = JudgeEngine(RuleSet.load(), RulesOnly())
RULE_DECIDED = [text for text in DESK_MESSAGES if RULE_ENGINE.decide_rules(text) is not None]
MODEL_DECIDED = [text for text in DESK_MESSAGES if RULE_ENGINE.decide_rules(text) is None]


async def test_the_judge_client_carries_the_rule_verdicts_unchanged(judge_service: GuardEndpoint) -> None:
    async with JudgeClient(judge_service.settings) as judge:
        for text in RULE_DECIDED:
            assert await judge.screen(text) == RULE_ENGINE.decide_rules(text), text


async def test_the_judge_client_reads_model_tier_verdicts(judge_service: GuardEndpoint) -> None:
    async with JudgeClient(judge_service.settings) as judge:
        verdicts = [await judge.screen(text) for text in MODEL_DECIDED[:10]]
    assert verdicts and all(v.tier == "model" and v.score is not None for v in verdicts)


@pytest.mark.parametrize("case", DETECT, ids=[case["id"] for case in DETECT])
async def test_the_masker_client_carries_the_masking_unchanged(masker_service: GuardEndpoint,
                                                              case: dict[str, Any]) -> None:
    async with MaskerClient(masker_service.settings) as masker:
        result = await masker.mask(case["text"])
    assert result == Masker(masker_service.settings.masker_types).mask(case["text"])
    assert all(isinstance(r.start, int) and isinstance(r.end, int) for r in result.redactions)


async def test_an_injected_http_session_is_shared_and_left_open(judge_service: GuardEndpoint,
                                                                 masker_service: GuardEndpoint) -> None:
    async with aiohttp.ClientSession() as http:
        judge = JudgeClient(judge_service.settings, http=http)
        masker = MaskerClient(masker_service.settings, http=http)
        await judge.screen("Where is my order ORD-10042?")
        await masker.mask("Mail jo@example.com")
        await judge.aclose()
        await masker.aclose()
        assert not http.closed


TOKEN = secrets.token_urlsafe(24)


@pytest.fixture(scope="module")
def locked_guards(base_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Both guards with their own TOKEN (not the session's); yields settings that carry it."""
    settings = base_settings.model_copy(update={
        "guard_token": SecretStr(TOKEN), "judge_port": free_port(), "masker_port": free_port(),
    })
    workdir = tmp_path_factory.mktemp("locked-guards")
    with running_guard("judge", settings, workdir), running_guard("masker", settings, workdir):
        yield settings


async def test_the_clients_send_the_token(locked_guards: Settings) -> None:
    async with JudgeClient(locked_guards) as judge, MaskerClient(locked_guards) as masker:
        assert (await judge.screen("Where is my order ORD-10042?")).verdict == "allow"
        assert (await masker.mask("Mail jo@example.com")).text == "Mail [EMAIL]"


def test_a_client_without_a_token_cannot_be_built(locked_guards: Settings) -> None:
    settings = locked_guards.model_copy(update={"guard_token": None})
    for client in (JudgeClient, MaskerClient):
        with pytest.raises(errors.ConfigError, match="GUARD_TOKEN"):
            client(settings)


async def test_with_another_token_the_clients_fail_closed(locked_guards: Settings) -> None:
    settings = locked_guards.model_copy(update={"guard_token": SecretStr("not-the-token")})
    async with JudgeClient(settings) as judge, MaskerClient(settings) as masker:
        with pytest.raises(errors.GuardUnavailable) as judged:
            await judge.screen("Where is my order ORD-10042?")
        with pytest.raises(errors.GuardUnavailable) as masked:
            await masker.mask("Mail jo@example.com")
    assert (judged.value.guard, masked.value.guard) == ("judge", "masker")
    assert "401" in judged.value.detail and "401" in masked.value.detail
