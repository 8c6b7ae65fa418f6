"""p50/p95 of embedding one message, memory recall and memory save (embedded Mem0 on pgvector).

.venv/bin/python -m evals.benchmarks.bench_memory [--runs N] [--customers N]

Starts a private embedded PostgreSQL in a temporary folder (free port, generated password),
fills the memory table with `--customers` customers of a few memories each, then times the
desk's own calls. Every timed text is new, so no call is served by the embedder's cache; the
last line is a turn's real pattern, where save follows a recall of the same message (cached).
Targets: embed <= 5 ms, recall <= 15 ms, save <= 25 ms (p50). CPU time per embedding is printed
too: on a shared machine it depends less on the other processes than wall time does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from db.bootstrap import prepare_database
from db.embedded import EmbeddedPostgres
from evals.harness import private_settings
from guards.embedding import Embedder
from pipeline.memory.embedded import EmbeddedMemoryStore

MESSAGES = [
    "Where is my order ORD-10042?",
    "Please always leave parcels with the neighbour at number 12.",
    "I want to return the blue jumper, it is too small.",
    "From now on please don't ring the bell, the baby sleeps in the afternoon.",
    "Can you list all the orders on my account and tell me which one ships next?",
]
PREFERENCES = [
    "Please always leave parcels with the neighbour at number {n}.",
    "Call me {name}, not by my full name.",
    "I prefer deliveries after {n}pm on weekdays.",
    "Only contact me by email, never by phone.",
    "My safe place is the shed behind house {n}.",
]


def _new(i: int, kind: str) -> str:
    return f"{MESSAGES[i % len(MESSAGES)]} ({kind} {i})"


def _report(name: str, samples_ms: list[float], target_ms: float | None = None) -> None:
    cuts = statistics.quantiles(samples_ms, n=100)
    goal = f"  (target p50 <= {target_ms:g} ms)" if target_ms else ""
    print(f"{name:<22} p50 {cuts[49]:7.2f} ms  p95 {cuts[94]:7.2f} ms  n={len(samples_ms)}{goal}")


async def _time_async(runs: int, call: Callable[[int], Awaitable[object]]) -> list[float]:
    samples = []
    for i in range(runs):
        started = time.perf_counter()
        await call(i)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def bench(runs: int, customers: int) -> None:
    embedder = Embedder.load()
    for text in MESSAGES * 10:  # warm ORT's kernels and allocator
        embedder.embed_one(text)
    wall, cpu = [], []
    for i in range(runs):
        started, started_cpu = time.perf_counter(), time.thread_time()
        embedder.embed_one(_new(i, "embed"))
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - started_cpu) * 1000)

    with tempfile.TemporaryDirectory(prefix="bench-memory-") as folder:
        settings = private_settings(Path(folder))
        await prepare_database(settings, seed_demo=False)
        store = EmbeddedMemoryStore.from_settings(settings, embedder=embedder)
        try:
            for c in range(customers):
                for template in PREFERENCES:
                    await store.save(user_id=f"c{c}@example.com",
                                     text=template.format(n=c % 9 + 1, name=f"Customer {c}"))
            print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
                  f"{customers * len(PREFERENCES)} memories of {customers} customers")
            _report("embed one message", wall, 5)
            _report("  (CPU time)", cpu)
            recall = await _time_async(runs, lambda i: store.recall(
                user_id=f"c{i % customers}@example.com", query=_new(i, "recall")))
            _report("recall", recall, 15)
            save = await _time_async(runs, lambda i: store.save(
                user_id=f"c{i % customers}@example.com", text=_new(i, "save")))
            _report("save (new memory)", save, 25)
            turn_save = []
            for i in range(runs):
                customer, text = f"c{i % customers}@example.com", _new(i, "turn")
                await store.recall(user_id=customer, query=text)
                started = time.perf_counter()
                await store.save(user_id=customer, text=text)
                turn_save.append((time.perf_counter() - started) * 1000)
            _report("save after its recall", turn_save, 25)
        finally:
            await store.aclose()
            EmbeddedPostgres(settings).stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--customers", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(bench(args.runs, args.customers))


if __name__ == "__main__":
    main()
