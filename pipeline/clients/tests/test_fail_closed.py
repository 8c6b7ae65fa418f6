"""A guard that is down, slow or answering garbage makes the client raise: never an allow."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, SecretStr

from evals.loopback import refusing_port
from guards.proof import GuardKeys
from guards.schema import MaskResult, Verdict
from pipeline.clients import JudgeClient, MaskerClient
from pipeline.clients.channel import GuardClient
from pipeline.clients.tests.fake_guard import Reply, Signer, fake_guard
from pipeline.core import errors
from pipeline.core.settings import Settings

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "broken_replies.yaml").read_text())
GUARDS = ("judge", "masker")
#: Short timeouts keep the slow cases quick; the client must honour whatever it is given.
CONNECT_S, READ_S = 0.5, 0.3


def pointed_at(settings: Settings, port: int) -> Settings:
    return settings.model_copy(update={
        "judge_host": "127.0.0.1", "judge_port": port, "masker_host": "127.0.0.1", "masker_port": port,
        "judge_timeout_s": READ_S, "masker_timeout_s": READ_S, "guard_connect_timeout_s": CONNECT_S,
    })


async def call(guard: str, settings: Settings, text: str | None = None) -> BaseModel:
    client: GuardClient
    if guard == "judge":
        async with JudgeClient(settings) as client:
            return await client.screen(text or "Where is my order?")
    async with MaskerClient(settings) as client:
        return await client.mask(text or "Mail jo@example.com")


def signer(guard: str, settings: Settings, how: str) -> Signer:
    """A proof maker: the guard's own (`genuine`), or one of an impostor's tries."""
    keys = GuardKeys.derive(settings.guard_secret)
    model: type[BaseModel] = Verdict if guard == "judge" else MaskResult

    def sign(request: dict[str, Any], data: dict[str, Any]) -> str:
        message = request["params"]["message"]
        message_id, text, name, key = message["messageId"], message["parts"][0]["text"], guard, keys
        signed = model.model_validate(data).model_dump(mode="json", exclude_none=True)
        if how == "other-token":
            key = GuardKeys.derive(SecretStr("a-token-the-impostor-made-up"))
        elif how == "with-the-bearer":
            key = GuardKeys(bearer=keys.bearer, reply_key=keys.bearer.encode())
        elif how == "other-request":
            message_id = "an-earlier-request"
        elif how == "other-text":
            text = "Mail [EMAIL]"
        elif how == "other-guard":
            name = "masker" if guard == "judge" else "judge"
        else:
            assert how == "genuine", how
        return key.sign(name, message_id, text, signed)

    return sign


def expect(raises: str) -> type[errors.GuardUnavailable]:
    kind = getattr(errors, raises)
    assert issubclass(kind, errors.GuardUnavailable)
    return kind


PAIRS = [(guard, case) for case in CASES for guard in case.get("guards", GUARDS)]


@pytest.mark.parametrize(("guard", "case"), PAIRS, ids=[f"{guard}-{case['name']}" for guard, case in PAIRS])
async def test_broken_replies_raise_the_typed_error(base_settings: Settings, guard: str,
                                                    case: dict[str, Any]) -> None:
    sign = signer(guard, base_settings, case["signed"]) if "signed" in case else None
    async with fake_guard(Reply(status=case.get("status", 200), body=case["body"], sign=sign)) as port:
        settings = pointed_at(base_settings, port)
        if case["raises"] is None:
            assert await call(guard, settings)
            return
        with pytest.raises(errors.GuardUnavailable) as raised:
            await call(guard, settings)
    assert type(raised.value) is expect(case["raises"])
    assert raised.value.guard == guard
    assert "jo@example.com" not in raised.value.detail and "Where is my order" not in raised.value.detail


@pytest.mark.parametrize("guard", GUARDS)
@pytest.mark.parametrize(
    "reply",
    [Reply(delay_s=READ_S + 0.7, body="{}"), Reply(trickle_s=READ_S * 0.6, body="{" + " " * 40 + "}")],
    ids=["silent", "trickling"],
)
async def test_a_slow_guard_times_out_within_its_budget(base_settings: Settings, guard: str, reply: Reply) -> None:
    async with fake_guard(reply) as port:
        started = time.monotonic()
        with pytest.raises(errors.GuardTimeout) as raised:
            await call(guard, pointed_at(base_settings, port))
        elapsed = time.monotonic() - started
    assert raised.value.guard == guard
    assert elapsed < CONNECT_S + READ_S + 0.5


@pytest.mark.parametrize("guard", GUARDS)
async def test_a_guard_that_is_down_is_unavailable(base_settings: Settings, guard: str) -> None:
    with refusing_port() as port, pytest.raises(errors.GuardUnavailable) as raised:
        await call(guard, pointed_at(base_settings, port))
    assert type(raised.value) is errors.GuardUnavailable and raised.value.guard == guard


@pytest.mark.parametrize("guard", GUARDS)
async def test_a_guard_that_hangs_up_is_unavailable(base_settings: Settings, guard: str) -> None:
    async with fake_guard(Reply(hang_up=True)) as port:
        with pytest.raises(errors.GuardUnavailable) as raised:
            await call(guard, pointed_at(base_settings, port))
    assert type(raised.value) is errors.GuardUnavailable and raised.value.guard == guard


@pytest.mark.parametrize("guard", GUARDS)
async def test_text_that_is_not_valid_unicode_is_refused_before_sending(base_settings: Settings,
                                                                       guard: str) -> None:
    async with fake_guard(Reply(body="{}")) as port:
        with pytest.raises(errors.GuardProtocolError) as raised:
            await call(guard, pointed_at(base_settings, port), "order \ud800 status")
    assert raised.value.guard == guard
