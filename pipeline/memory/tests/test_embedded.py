"""Embedded backend on the real embedded PostgreSQL + pgvector (memory_cases.yaml)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml

from db.connect import connection
from guards.embedding import Embedder
from guards.embedding.embedder import Vectors
from pipeline.core.errors import MemoryBackendError
from pipeline.core.settings import Settings
from pipeline.memory.embedded import EmbeddedMemoryStore, open_mem0
from pipeline.memory.policy import worth_saving
from pipeline.memory.records import Recall

CASES = yaml.safe_load(Path(__file__).with_name("memory_cases.yaml").read_text())
REPO = Path(__file__).resolve().parents[3]


def _store(settings: Settings, embedder: Embedder, **limits: float) -> EmbeddedMemoryStore:
    params = {"min_score": settings.t_mem_minscore, "max_chars": settings.t_mem_maxchars,
              "top_k": settings.memory_top_k, "timeout_s": settings.memory_timeout_s} | limits
    return EmbeddedMemoryStore(open_mem0(settings, embedder), **params)  # type: ignore[arg-type]


async def _rows(settings: Settings, user_id: str) -> list[dict[str, str]]:
    async with connection(settings) as conn:
        rows = await conn.fetch(f'SELECT payload FROM "{settings.memory_collection}" '
                                "WHERE payload->>'user_id' = $1", user_id)
    return [json.loads(row["payload"]) for row in rows]


async def test_customers_never_see_each_others_memories(memory: EmbeddedMemoryStore) -> None:
    ids = {name: f"{name}-{uuid.uuid4().hex[:8]}@example.com" for name in CASES["customers"]}
    own: dict[str, set[str]] = {}
    for name, texts in CASES["customers"].items():
        own[name] = set()
        for text in texts:
            own[name].update((await memory.save(user_id=ids[name], text=text)).memory_ids)
    for name, query in itertools.product(CASES["customers"], CASES["queries"]):
        recall = await memory.recall(user_id=ids[name], query=query)
        found = {m.id for m in recall.kept} | {d.id for d in recall.dropped}
        assert found <= own[name], f"{name} recalled another customer's memory for {query!r}"
        assert {m.text for m in recall.kept} <= set(CASES["customers"][name])


async def test_a_verbatim_query_finds_the_customers_own_memory(memory: EmbeddedMemoryStore, customer: str) -> None:
    text = CASES["customers"]["a"][0]
    saved = await memory.save(user_id=customer, text=text)
    recall = await memory.recall(user_id=customer, query=text)
    assert [m.id for m in recall.kept][:1] == saved.memory_ids
    assert recall.kept[0].score == pytest.approx(1.0, abs=1e-3)


async def test_scores_are_cosine_similarities(memory: EmbeddedMemoryStore, embedder: Embedder,
                                             customer: str) -> None:
    text, query = CASES["filters"]["kept"], CASES["filters"]["query"]
    await memory.save(user_id=customer, text=text)
    recall = await memory.recall(user_id=customer, query=query)
    expected = float(embedder.embed_one(text) @ embedder.embed_one(query))
    reported = [m.score for m in recall.kept] + [d.score for d in recall.dropped]
    assert reported == [pytest.approx(expected, abs=1e-4)]


async def test_only_the_given_customer_text_is_stored(memory: EmbeddedMemoryStore, memory_settings: Settings,
                                                      customer: str) -> None:
    texts = CASES["customers"]["b"]
    for text in texts:
        await memory.save(user_id=customer, text=text)
    rows = await _rows(memory_settings, customer)
    assert sorted(row["data"] for row in rows) == sorted(texts)
    assert {row["role"] for row in rows} == {"user"}


async def test_saying_the_same_thing_twice_stores_it_once(memory: EmbeddedMemoryStore, memory_settings: Settings,
                                                          customer: str) -> None:
    text = CASES["customers"]["a"][1]
    first = await memory.save(user_id=customer, text=text)
    again = await memory.save(user_id=customer, text=text)
    assert (first.status, again.status) == ("stored", "duplicate")
    assert again.memory_ids == first.memory_ids
    assert len(await _rows(memory_settings, customer)) == 1


async def test_filters_report_what_they_dropped_and_why(memory_settings: Settings, embedder: Embedder,
                                                       customer: str) -> None:
    cases = CASES["filters"]
    max_chars = 120
    too_long = cases["too_long"] * (max_chars // len(cases["too_long"]) + 1)
    # A cut-off between the relevant and the irrelevant memory's similarity to the query.
    query = embedder.embed_one(cases["query"])
    high = float(embedder.embed_one(cases["kept"]) @ query)
    low = float(embedder.embed_one(cases["low_score"]) @ query)
    assert low < high
    store = _store(memory_settings, embedder, min_score=(low + high) / 2, max_chars=max_chars)
    try:
        ids = {name: (await store.save(user_id=customer, text=text)).memory_ids[0]
               for name, text in (("kept", cases["kept"]), ("low_score", cases["low_score"]),
                                  ("too_long", too_long))}
        recall = await store.recall(user_id=customer, query=cases["query"])
    finally:
        await store.aclose()
    assert [m.id for m in recall.kept] == [ids["kept"]]
    assert {d.id: d.why for d in recall.dropped} == {ids["low_score"]: "low_score", ids["too_long"]: "too_long"}
    assert {d.id: d.chars for d in recall.dropped}[ids["too_long"]] == len(too_long)


async def test_memories_survive_a_new_store(memory_settings: Settings, embedder: Embedder, customer: str) -> None:
    text = CASES["customers"]["b"][2]
    first = _store(memory_settings, embedder)
    saved = await first.save(user_id=customer, text=text)
    await first.aclose()
    second = _store(memory_settings, embedder)
    try:
        recall = await second.recall(user_id=customer, query=text)
    finally:
        await second.aclose()
    assert [m.id for m in recall.kept] == saved.memory_ids


RECALL_IN_ANOTHER_PROCESS = """
import asyncio, json, sys
from guards.embedding import Embedder
from pipeline.memory.factory import build_memory
from pipeline.core.settings import load_settings

async def main():
    store = build_memory(load_settings(), embedder=Embedder.load())
    recall = await store.recall(user_id=sys.argv[1], query=sys.argv[2])
    await store.aclose()
    print(recall.model_dump_json())

asyncio.run(main())
"""


async def test_memories_survive_a_process_restart(memory: EmbeddedMemoryStore, memory_settings: Settings,
                                                  customer: str, tmp_path: Path) -> None:
    text = CASES["customers"]["a"][2]
    saved = await memory.save(user_id=customer, text=text)
    s = memory_settings
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path),
           "POSTGRES_HOST": s.pg_host, "POSTGRES_PORT": str(s.postgres_port), "POSTGRES_DB": s.postgres_db,
           "POSTGRES_USER": s.postgres_user, "POSTGRES_PASSWORD": s.postgres_password.get_secret_value(),
           "POSTGRES_READER_PASSWORD": "unused", "POSTGRES_WRITER_PASSWORD": "unused", "GUARD_TOKEN": "unused",
           "MEM0_DIR": str(tmp_path / "mem0"), "MEMORY_COLLECTION": s.memory_collection}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", RECALL_IN_ANOTHER_PROCESS, customer, text, cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    stdout, stderr = await asyncio.wait_for(child.communicate(), timeout=120)
    assert child.returncode == 0, stderr.decode()[-2000:]
    recall = json.loads(stdout.decode().strip().splitlines()[-1])
    assert [m["id"] for m in recall["kept"]] == saved.memory_ids
    assert not (tmp_path / ".mem0").exists(), "mem0 wrote to the home folder"


async def test_the_first_recalls_of_a_fresh_store_may_come_at_once(memory_settings: Settings, embedder: Embedder,
                                                                   customer: str) -> None:
    fresh = memory_settings.model_copy(update={"memory_collection": f"fresh_{uuid.uuid4().hex[:8]}"})
    store = _store(fresh, embedder, timeout_s=10.0)
    try:
        recalls = await asyncio.gather(*(store.recall(user_id=customer, query=f"where is parcel {i}")
                                         for i in range(4)))
    finally:
        await store.aclose()
    assert [found.kept for found in recalls] == [[]] * 4


@pytest.mark.parametrize("user_id", ["", "   "])
async def test_a_missing_customer_id_is_a_programming_error(memory: EmbeddedMemoryStore, user_id: str) -> None:
    with pytest.raises(ValueError):
        await memory.recall(user_id=user_id, query="where is my order")
    with pytest.raises(ValueError):
        await memory.save(user_id=user_id, text="Call me Sam.")


async def test_a_blank_text_is_refused(memory: EmbeddedMemoryStore, customer: str) -> None:
    with pytest.raises(ValueError):
        await memory.save(user_id=customer, text="  ")


class _CountingEmbedder(Embedder):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded += list(texts)
        return super().embed(texts)


async def test_a_customer_without_memories_costs_no_embedding(memory_settings: Settings, customer: str) -> None:
    embedder = _CountingEmbedder.load()
    assert isinstance(embedder, _CountingEmbedder)
    store = _store(memory_settings, embedder)
    try:
        assert await store.recall(user_id=customer, query="where is my parcel") == Recall()
        assert embedder.embedded == []
        preference = CASES["customers"]["a"][0]
        assert worth_saving(preference)
        assert await store.recall(user_id=customer, query=preference) == Recall()
        assert embedder.embedded == [preference]  # for the save that follows, beside the Judge
        await store.save(user_id=customer, text=CASES["customers"]["a"][0])
        await store.recall(user_id=customer, query="where is my parcel")
        assert "where is my parcel" in embedder.embedded
    finally:
        await store.aclose()


async def test_a_blank_query_recalls_nothing(memory: EmbeddedMemoryStore, customer: str) -> None:
    await memory.save(user_id=customer, text=CASES["customers"]["a"][0])
    recall = await memory.recall(user_id=customer, query=" ")
    assert (recall.kept, recall.dropped) == ([], [])


async def test_an_unreachable_database_is_a_memory_backend_error(memory_settings: Settings, embedder: Embedder,
                                                                customer: str, unused_port: int) -> None:
    store = _store(memory_settings.model_copy(update={"postgres_port": unused_port}), embedder, timeout_s=1.0)
    try:
        with pytest.raises(MemoryBackendError):
            await store.recall(user_id=customer, query="where is my parcel")
        with pytest.raises(MemoryBackendError):
            await store.save(user_id=customer, text="Call me Sam.")
    finally:
        await store.aclose()


async def test_a_slow_backend_times_out_as_a_memory_backend_error(memory_settings: Settings, embedder: Embedder,
                                                                  customer: str) -> None:
    store = _store(memory_settings, embedder, timeout_s=1e-4)
    try:
        with pytest.raises(MemoryBackendError, match="timed out"):
            await store.recall(user_id=customer, query="where is my parcel")
    finally:
        await store.aclose()


def test_mem0_can_never_call_a_language_model(memory: EmbeddedMemoryStore) -> None:
    with pytest.raises(MemoryBackendError):
        memory._memory.llm.generate_response([{"role": "user", "content": "hi"}])


def test_mem0_telemetry_is_off(memory: EmbeddedMemoryStore) -> None:
    from mem0.memory import telemetry

    assert telemetry.MEM0_TELEMETRY is False
