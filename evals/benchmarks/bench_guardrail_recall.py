"""p50/p95 of what a turn spends reading its message before the agent: Guardrail + memory recall.

    .venv/bin/python -m evals.benchmarks.bench_guardrail_recall [--runs N] [--customers N]

Builds the desk's Guardrail (offline classifier on e5), embedded memory (MiniLM; private
PostgreSQL in a temp folder, `--customers` customers with a few memories each) and offline agent
(intents on the same e5), as `pipeline.wiring` does, then for every message — each new, so nothing
is remembered from an earlier one — times the Guardrail's check, then recall of the same message
(the search only; the desk then has the Judge screen what it found), then the agent's intent match.
Three kinds of message: ones the Guardrail's model reads with the e5 vector the Judge's reply
brought (as the offline desk runs them: a second e5 engine stands in for the Judge's process and
its reading is taken before the clock starts — that e5 reading is the Judge's cost, in its round
trip); the same kind embedded by the Guardrail itself (a Judge that sends no reading: hosted, or
none); and plain status questions the Guardrail's fast path answers (there the agent's intent
match is the first to embed the message with e5). In a turn the memory search runs during the
Judge's round trip, so only its part after the Judge's answer is on the turn's path; here it is
timed whole, one step after the other, and then as `pipeline/turn.py` runs them: both started at
once, timed until the later one ends. A customer with no memory at all (most of them) costs recall
a one-row lookup instead of an embedding: timed apart. Target (issue 11): Guardrail + recall
together p50 <= 20 ms. The process's CPU time of each step is printed too: on a shared machine it
depends less on the other processes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from db.bootstrap import prepare_database
from db.embedded import EmbeddedPostgres
from evals.harness import private_settings
from guards.classifier.embedders import E5Embedder, shared_e5
from guards.embedding import Embedder
from guards.guardrail.fast_path import fast_verdict
from guards.judge.rules import RuleSet
from pipeline.guardrail import Guardrail
from pipeline.memory.embedded import EmbeddedMemoryStore
from pipeline.models.factory import build_llm
from pipeline.models.offline_support import OfflineSupportLlm

#: Messages for the Guardrail's model (those its fast path allows after all are left out).
MESSAGES = [
    "My parcel should have come on Monday and I still have nothing, can you look into it",
    "Please cancel the mug I ordered last week, I picked the wrong colour",
    "¿Puedes decirme si mi pedido ya salió del almacén",
    "What's the best way to cook rice for a big family dinner",
    "Kann ich die Schuhe noch gegen eine Nummer größer umtauschen",
    "I'd like to send back the rug I bought, it does not fit the room",
]
#: Plain status questions, each with a new order number: the Guardrail's fast path answers them.
FAST_PATH = ["Where is my order ORD-{n}?", "What's the status of ORD-{n}?", "Has ORD-{n} shipped yet?"]
PREFERENCES = ["Please always leave parcels with the neighbour at number {n}.",
               "I prefer deliveries after {n}pm on weekdays.", "Only contact me by email, never by phone."]


def report(label: str, wall_ms: list[float], cpu_ms: list[float]) -> None:
    wall, cpu = statistics.quantiles(wall_ms, n=100), statistics.quantiles(cpu_ms, n=100)
    print(f"{label:<28} n={len(wall_ms):<5} p50 {wall[49]:7.2f} ms  p95 {wall[94]:7.2f} ms   "
          f"CPU p50 {cpu[49]:7.2f} ms  p95 {cpu[94]:7.2f} ms")


def _judges_reading(judge_e5: E5Embedder, text: str) -> None:
    """The Judge's process reads the message; its reply brings the vector (taken before the clock)."""
    judge_e5.embed_one(text)
    reading = judge_e5.reading(text)
    assert reading is not None and shared_e5().take(text, reading)


async def measure(guardrail: Guardrail, memory: EmbeddedMemoryStore, agent: OfflineSupportLlm,
                  texts: list[str], customers: int, judge_e5: E5Embedder | None = None,
                  customer_prefix: str = "c") -> None:
    names = ("guardrail", "recall", "guardrail + recall", "agent intent (after both)")
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for i, text in enumerate(texts):
        customer = f"{customer_prefix}{i % customers}@example.com"
        if judge_e5 is not None:
            _judges_reading(judge_e5, text)
        marks = [(time.perf_counter(), time.process_time())]
        await guardrail.check(text)
        marks.append((time.perf_counter(), time.process_time()))
        await memory.recall(user_id=customer, query=text)
        marks.append((time.perf_counter(), time.process_time()))
        agent.recognise(text)
        marks.append((time.perf_counter(), time.process_time()))
        if i < 10:  # the first messages warm the engine, the pool and ADK
            continue
        for name, (a, b) in zip(names, ((0, 1), (1, 2), (0, 2), (2, 3)), strict=True):
            wall[name].append((marks[b][0] - marks[a][0]) * 1000)
            cpu[name].append((marks[b][1] - marks[a][1]) * 1000)
    for name in names:
        report(name, wall[name], cpu[name])


async def measure_together(guardrail: Guardrail, memory: EmbeddedMemoryStore, texts: list[str], customers: int,
                           judge_e5: E5Embedder) -> None:
    wall: list[float] = []
    cpu: list[float] = []
    for i, text in enumerate(texts):
        _judges_reading(judge_e5, text)
        started = (time.perf_counter(), time.process_time())
        await asyncio.gather(guardrail.check(text), memory.recall(user_id=f"c{i % customers}@example.com", query=text))
        if i >= 10:
            wall.append((time.perf_counter() - started[0]) * 1000)
            cpu.append((time.process_time() - started[1]) * 1000)
    report("guardrail + recall, at once", wall, cpu)


async def bench(runs: int, customers: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-guardrail-recall-") as folder:
        settings = private_settings(Path(folder))
        await prepare_database(settings, seed_demo=False)
        guardrail = Guardrail(build_llm(settings, "guardrail"), RuleSet.load().fast_path)
        agent = build_llm(settings, "agent")
        assert isinstance(agent, OfflineSupportLlm)
        memory = EmbeddedMemoryStore.from_settings(settings, embedder=Embedder.load())
        try:
            await guardrail.warm_up()
            for c in range(customers):
                for template in PREFERENCES:
                    await memory.save(user_id=f"c{c}@example.com", text=template.format(n=c % 9 + 1))
            print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
                  f"{customers * len(PREFERENCES)} memories of {customers} customers")
            fast_path = RuleSet.load().fast_path
            texts = [f"{MESSAGES[i % len(MESSAGES)]} ({i})?" for i in range(runs + 10)]
            read = [t for t in texts if fast_verdict(t, fast_path) is None]
            print("messages the Guardrail's model reads, with the Judge's reading (the offline desk):")
            judge_e5 = E5Embedder()
            await measure(guardrail, memory, agent, read, customers, judge_e5=judge_e5)
            print("the same kind of message, both started at once, as a turn starts them:")
            await measure_together(guardrail, memory, [f"{t} (at once)" for t in read], customers, judge_e5)
            print("the same kind of message from customers with no memory (the Judge's reading):")
            await measure(guardrail, memory, agent, [f"{t} (new)" for t in read], customers, judge_e5=judge_e5,
                          customer_prefix="new")
            print("the same kind of message, embedded by the Guardrail itself (no reading from the Judge):")
            await measure(guardrail, memory, agent, [f"{t} (own)" for t in read], customers)
            print("plain status questions (Guardrail fast path):")
            plain = [FAST_PATH[i % len(FAST_PATH)].format(n=20000 + i) for i in range(runs + 10)]
            assert all(fast_verdict(t, fast_path) is not None for t in plain)
            await measure(guardrail, memory, agent, plain, customers)
        finally:
            await memory.aclose()
            EmbeddedPostgres(settings).stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--customers", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(bench(args.runs, args.customers))


if __name__ == "__main__":
    main()
