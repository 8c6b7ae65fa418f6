"""p50/p95 of the guards: Judge decision in-process, Judge and Masker round trips over loopback.

    .venv/bin/python -m evals.benchmarks.bench_guards [--runs N]

Starts the real services (`services/launch.py`) on free loopback ports with private settings.
Targets on this machine: decision p50 <= 0.3 ms; round trips p50 <= 3 ms. The Judge round trip
is reported per tier, since a model-tier message also pays for the offline model; the Masker's on a
1 KB answer as the desk writes them and on a PII-dense one (`bench_masker.ANSWERS`). The a2a-sdk
client's round trip is printed as the reference the pipeline's raw JSON-RPC client is chosen over.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from pathlib import Path

import httpx

from evals.a2a_caller import fetch_card, sdk_send
from evals.benchmarks.bench_masker import ANSWERS
from evals.guard_cases import judge_cases
from evals.harness import private_settings
from guards.judge import JudgeEngine, RuleSet
from guards.judge.model_tier import LlmJudgeTier
from guards.proof import GuardKeys
from pipeline.clients import JudgeClient, MaskerClient
from pipeline.core.settings import Settings
from pipeline.models.factory import build_llm
from services.launch import start_service, stop_service

MESSAGES = [case["text"] for case in judge_cases("attacks.yaml") + judge_cases("legit.yaml")]


def cpu_times() -> list[int]:
    """The machine's CPU time counters (user, nice, system, idle, iowait, irq, softirq, steal)."""
    with open("/proc/stat") as stat:
        return [int(field) for field in stat.readline().split()[1:9]]


def report(label: str, samples_ms: list[float]) -> None:
    cuts = statistics.quantiles(samples_ms, n=100)
    print(f"{label:<46} n={len(samples_ms):<6} p50 {cuts[49]:7.3f} ms  p95 {cuts[94]:7.3f} ms")


def decision_samples(engine: JudgeEngine, texts: list[str], runs: int) -> list[float]:
    for text in texts:  # warm the compiled patterns and decoders
        engine.decide_rules(text)
    samples = []
    for i in range(runs):
        text = texts[i % len(texts)]
        started = time.perf_counter()
        engine.decide_rules(text)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


Call = Callable[[str], Awaitable[object]]


async def round_trips(calls: dict[str, tuple[Call, list[str]]], runs: int, block: int = 50) -> dict[str, list[float]]:
    """Time every call `runs` times, interleaved in blocks, so all see the same machine load."""
    for call, texts in calls.values():
        for text in texts[:20]:  # open the pooled connection and warm the service
            await call(text)
    samples: dict[str, list[float]] = {label: [] for label in calls}
    for start in range(0, runs, block):
        for label, (call, texts) in calls.items():
            for i in range(start, min(start + block, runs)):
                text = texts[i % len(texts)]
                started = time.perf_counter()
                await call(text)
                samples[label].append((time.perf_counter() - started) * 1000)
    return samples


async def measure_services(settings: Settings, rule_texts: list[str], model_texts: list[str], runs: int) -> None:
    bearer = {"Authorization": GuardKeys.derive(settings.guard_secret).authorization}
    async with JudgeClient(settings) as judge, MaskerClient(settings) as masker, \
            httpx.AsyncClient(trust_env=False, headers=bearer) as http:
        card = await fetch_card(http, settings.judge_url)

        async def sdk_screen(text: str) -> object:
            return await sdk_send(http, card, text)

        calls: dict[str, tuple[Call, list[str]]] = {
            "judge round trip, pattern/fast path": (judge.screen, rule_texts),
            "judge round trip, model tier": (judge.screen, model_texts),
            **{f"masker round trip, {len(answer.encode())}-byte {label}": (masker.mask, [answer])
               for label, answer in ANSWERS.items()},
            "judge round trip via a2a-sdk client (ref.)": (sdk_screen, rule_texts),
        }
        before = cpu_times()
        measured = await round_trips(calls, runs)
        spent = [end - start for start, end in zip(before, cpu_times(), strict=True)]
        for label, samples in measured.items():
            report(label, samples)
        # This is a VM on a shared host: other guests' load moves these numbers by tens of percent.
        print(f"CPU time stolen by the host during the round trips: {100 * spent[7] / max(sum(spent), 1):.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        settings = private_settings(Path(tmp))
        engine = JudgeEngine(RuleSet.load(), LlmJudgeTier(build_llm(settings, "judge")))
        rule_texts = [text for text in MESSAGES if engine.decide_rules(text) is not None]
        model_only = [text for text in MESSAGES if engine.decide_rules(text) is None]
        # The Judge remembers recent embeddings, so each measured model-tier message is made new.
        variants = [f"{model_only[i % len(model_only)]} (v{i})" for i in range(args.runs + 20)]
        model_texts = [text for text in variants if engine.decide_rules(text) is None]
        print(f"{len(MESSAGES)} desk messages: {len(rule_texts)} decided by rules, {len(model_only)} by the model")
        report("judge decision in-process (decide_rules)", decision_samples(engine, MESSAGES, args.runs * 10))
        for name in ("judge", "masker"):
            service = start_service(name, settings, base_env=os.environ, cwd=Path(tmp), timeout_s=120)
            stack.callback(stop_service, service)
        asyncio.run(measure_services(settings, rule_texts, model_texts, args.runs))


if __name__ == "__main__":
    main()
