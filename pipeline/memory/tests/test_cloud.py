"""Cloud backend against recorded Mem0 Platform exchanges replayed on a loopback port."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.core.errors import MemoryBackendError
from pipeline.memory.cloud import CloudMemoryStore
from pipeline.memory.tests.replay_server import RECORDINGS, ReplayServer, replay_server

API_KEY = "m0-test-key-for-the-replay-server"
CUSTOMER = "alice@example.com"
MAX_CHARS = 200
MIN_SCORE = 0.35


def _exchanges() -> dict[str, dict[str, Any]]:
    exchanges = copy.deepcopy(RECORDINGS["exchanges"])
    long_item = exchanges["search"]["response"]["results"][2]
    long_item["memory"] = "Leave my parcels with the neighbour and ring twice. " * 10
    return exchanges


@pytest.fixture()
async def server() -> AsyncIterator[ReplayServer]:
    async with replay_server(_exchanges()) as running:
        yield running


@pytest.fixture()
async def store(server: ReplayServer, tmp_path: Path) -> AsyncIterator[CloudMemoryStore]:
    cloud = CloudMemoryStore(api_key=API_KEY, host=server.url, mem0_dir=tmp_path / "mem0", min_score=MIN_SCORE,
                             max_chars=MAX_CHARS, top_k=5, timeout_s=5.0)
    yield cloud
    await cloud.aclose()


def _requests(server: ReplayServer, path: str) -> list[Any]:
    return [seen for seen in server.seen if seen.path == path]


async def test_save_sends_only_the_customer_text_under_their_id(store: CloudMemoryStore,
                                                                server: ReplayServer) -> None:
    text = "Please always leave parcels with the neighbour at number 12."
    result = await store.save(user_id=CUSTOMER, text=text)
    [add] = _requests(server, "/v3/memories/add/")
    assert add.method == "POST"
    assert add.body["messages"] == [{"role": "user", "content": text}]
    assert add.body["filters"] == {"user_id": CUSTOMER}
    assert add.body["infer"] is False
    assert result.status == "queued"
    assert result.event_id == RECORDINGS["exchanges"]["add"]["response"]["event_id"]


async def test_recall_filters_by_customer_and_reports_drops(store: CloudMemoryStore, server: ReplayServer) -> None:
    recall = await store.recall(user_id=CUSTOMER, query="Where will my parcel be left?")
    [search] = _requests(server, "/v3/memories/search/")
    assert search.body["filters"] == {"user_id": CUSTOMER}
    assert search.body["query"] == "Where will my parcel be left?"
    assert search.body["top_k"] == 5
    recorded = {item["id"]: item for item in _exchanges()["search"]["response"]["results"]}
    for memory in recall.kept:
        assert memory.score >= MIN_SCORE and len(memory.text) <= MAX_CHARS
        assert memory.text == recorded[memory.id]["memory"]
    whys = {d.why for d in recall.dropped}
    assert whys == {"low_score", "too_long"}
    assert len(recall.kept) + len(recall.dropped) == len(recorded)


async def test_every_request_carries_the_token_and_the_key_is_pinged_once(store: CloudMemoryStore,
                                                                           server: ReplayServer) -> None:
    await store.recall(user_id=CUSTOMER, query="where is my parcel")
    await store.save(user_id=CUSTOMER, text="Call me Sam.")
    await store.recall(user_id=CUSTOMER, query="what is my name")
    assert [s.path for s in server.seen].count("/v1/ping/") == 1
    assert server.seen[0].path == "/v1/ping/"
    assert {s.headers["authorization"] for s in server.seen} == {f"Token {API_KEY}"}


@pytest.mark.parametrize("user_id", ["", "  "])
async def test_no_request_without_a_customer(store: CloudMemoryStore, server: ReplayServer, user_id: str) -> None:
    with pytest.raises(ValueError):
        await store.recall(user_id=user_id, query="where is my parcel")
    with pytest.raises(ValueError):
        await store.save(user_id=user_id, text="Call me Sam.")
    assert server.seen == []


@pytest.mark.parametrize("failure", sorted(RECORDINGS["failures"]))
async def test_service_errors_are_memory_backend_errors(store: CloudMemoryStore, server: ReplayServer,
                                                        failure: str) -> None:
    exchange = RECORDINGS["failures"][failure]
    server.answer_with(exchange)
    if exchange["path"] in ("/v1/ping/", "/v3/memories/search/"):
        with pytest.raises(MemoryBackendError):
            await store.recall(user_id=CUSTOMER, query="where is my parcel")
    if exchange["path"] in ("/v1/ping/", "/v3/memories/add/"):
        with pytest.raises(MemoryBackendError):
            await store.save(user_id=CUSTOMER, text="Call me Sam.")


async def test_an_unreachable_service_is_a_memory_backend_error(unused_port: int, tmp_path: Path) -> None:
    cloud = CloudMemoryStore(api_key=API_KEY, host=f"http://127.0.0.1:{unused_port}", mem0_dir=tmp_path / "mem0",
                             min_score=MIN_SCORE, max_chars=MAX_CHARS, top_k=5, timeout_s=2.0)
    try:
        with pytest.raises(MemoryBackendError):
            await cloud.recall(user_id=CUSTOMER, query="where is my parcel")
    finally:
        await cloud.aclose()
