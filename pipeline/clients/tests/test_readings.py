"""The Judge's reply may bring the message's e5 vector (a `Reading`, signed with the verdict). The
desk's Judge client hands it to the process's embedder, so the Guardrail and the agent do not embed
the message again; a reading it cannot trust ends the call as a protocol error, never an allow."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import numpy as np
import pytest

from guards.classifier.embedders import E5Embedder, shared_e5
from guards.proof import GuardKeys
from guards.schema import JudgeReply, Verdict
from guards.tests.e5_queries import engine_queries
from pipeline.clients import JudgeClient
from pipeline.clients.tests.fake_guard import Reply, fake_guard
from pipeline.clients.tests.test_fail_closed import pointed_at
from pipeline.core import errors
from pipeline.core.settings import Settings

TEXT = "Could the courier leave my parcel in the porch this time?"
VERDICT = {"verdict": "allow", "reason": "No attack found by the security model.",
           "rules": ["model:judge-e5"], "tier": "model", "score": 0.04}
#: A unit vector no text embeds to: when the embedder returns it, it came from the reply.
SENT = np.eye(384, dtype="<f4")[7]


def b64(values: np.ndarray) -> str:
    return base64.b64encode(values.astype("<f4").tobytes()).decode()


def own(embedder: E5Embedder) -> dict[str, str]:
    """A reading of `SENT`, as `embedder`'s twin in the Judge's process would send it."""
    return {"embedder": embedder.identity, "vector": b64(SENT)}


@pytest.fixture
def e5(monkeypatch: pytest.MonkeyPatch) -> tuple[E5Embedder, list[str]]:
    """The process's e5 with an empty memo, and the texts its engine computes from now on."""
    embedder = shared_e5()
    computed = engine_queries(embedder, monkeypatch, forget=True)
    return embedder, computed


def judge_reply(reading: dict[str, Any], settings: Settings, *, sign_reading: bool = True, delay_s: float = 0.0
                ) -> Reply:
    keys = GuardKeys.derive(settings.guard_secret)
    data = {**VERDICT, "reading": reading}

    def sign(request: dict[str, Any], sent: dict[str, Any]) -> str:
        message = request["params"]["message"]
        signed = data if sign_reading else VERDICT
        dumped = JudgeReply.model_validate(signed).model_dump(mode="json", exclude_none=True)
        return keys.sign("judge", message["messageId"], message["parts"][0]["text"], dumped)

    body = {"jsonrpc": "2.0", "id": "$ID", "result": {"message": {
        "messageId": "r", "role": "ROLE_AGENT", "parts": [{"data": data}]}}}
    return Reply(body=json.dumps(body).replace('"$ID"', "$ID"), sign=sign, delay_s=delay_s)


@asynccontextmanager
async def judge_answering(reading: dict[str, Any], settings: Settings, embedder: E5Embedder,
                          **reply: Any) -> AsyncIterator[JudgeClient]:
    """A client of a Judge whose every reply brings `reading`, handing readings to `embedder`."""
    async with (fake_guard(judge_reply(reading, settings, **reply)) as port,
                JudgeClient(pointed_at(settings, port), readings=embedder) as judge):
        yield judge


async def test_a_reading_from_the_same_embedder_is_kept(base_settings: Settings,
                                                        e5: tuple[E5Embedder, list[str]]) -> None:
    embedder, computed = e5
    async with judge_answering(own(embedder), base_settings, embedder) as judge:
        verdict = await judge.screen(TEXT)
    assert type(verdict) is Verdict and verdict == Verdict.model_validate(VERDICT)
    assert np.array_equal(embedder.embed_one(TEXT), SENT)
    assert computed == []


async def test_a_reading_from_another_embedder_is_ignored(base_settings: Settings,
                                                          e5: tuple[E5Embedder, list[str]]) -> None:
    embedder, computed = e5
    other = {"embedder": "e5/another-engine/0000000000000000", "vector": b64(SENT)}
    async with judge_answering(other, base_settings, embedder) as judge:
        assert (await judge.screen(TEXT)).verdict == "allow"
    assert not np.array_equal(embedder.embed_one(TEXT), SENT)
    assert computed == [embedder.head(TEXT)]


BROKEN = {
    "not base64": "this is not base64!",
    "too short": b64(SENT[:100]),
    "not a unit vector": b64(SENT * 3),
    "not finite": b64(np.full(384, np.nan, dtype="<f4")),
}


@pytest.mark.parametrize("vector", BROKEN.values(), ids=BROKEN.keys())
async def test_a_reading_that_cannot_be_read_is_a_protocol_error(base_settings: Settings, vector: str,
                                                                  e5: tuple[E5Embedder, list[str]]) -> None:
    embedder, _ = e5
    async with judge_answering({"embedder": embedder.identity, "vector": vector}, base_settings, embedder) as judge:
        with pytest.raises(errors.GuardProtocolError):
            await judge.screen(TEXT)
    assert embedder.reading(TEXT) is None
    assert TEXT not in embedder._awaited, "the failed call still released its readers"


async def test_a_reading_added_to_a_signed_verdict_fails_the_proof(base_settings: Settings,
                                                                   e5: tuple[E5Embedder, list[str]]) -> None:
    embedder, _ = e5
    async with judge_answering(own(embedder), base_settings, embedder, sign_reading=False) as judge:
        with pytest.raises(errors.GuardProtocolError):
            await judge.screen(TEXT)
    assert embedder.reading(TEXT) is None


async def test_a_reader_awaits_the_reading_in_flight(base_settings: Settings,
                                                     e5: tuple[E5Embedder, list[str]]) -> None:
    embedder, computed = e5
    async with judge_answering(own(embedder), base_settings, embedder, delay_s=0.15) as judge:
        screening = asyncio.create_task(judge.screen(TEXT))
        await asyncio.sleep(0.03)  # the request is out: the reading is awaited
        await embedder.arrival(TEXT)
        assert screening.done()
        vector = embedder.embed_one(TEXT)
    assert np.array_equal(vector, SENT) and computed == []


async def test_with_no_reading_on_its_way_a_reader_goes_on_at_once(e5: tuple[E5Embedder, list[str]]) -> None:
    embedder, computed = e5
    await asyncio.wait_for(embedder.arrival(TEXT), timeout=0.01)
    embedder.embed_one(TEXT)
    assert computed == [embedder.head(TEXT)]


async def test_a_reader_the_turn_cancels_as_the_reply_wakes_it_embeds_nothing(e5: tuple[E5Embedder, list[str]]
                                                                               ) -> None:
    embedder, computed = e5

    async def guardrail() -> None:
        await embedder.arrival(TEXT)
        await asyncio.to_thread(embedder.embed_one, TEXT)

    with embedder.awaiting(TEXT):
        reader = asyncio.create_task(guardrail())
        await asyncio.sleep(0)  # it awaits the reading
    # The Judge answered without one: its rules blocked the message.
    await asyncio.sleep(0)  # the turn resumes after the reader its answer woke, then cancels it
    reader.cancel()
    await asyncio.gather(reader, return_exceptions=True)
    await asyncio.sleep(0.2)  # time enough for a worker thread it might have started
    assert computed == []
