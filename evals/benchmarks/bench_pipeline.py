"""p50/p95 of full turns through the real pipeline, end to end and per step, with the offline model.

    .venv/bin/python -m evals.benchmarks.bench_pipeline [--runs N] [--warmup N]

Boots a private desk (`evals.harness.private_desk`: PostgreSQL, Toolbox, Judge, Masker on free
loopback ports; tracing off) and runs, after a warm-up, two kinds of turn:
  - answered order turns: the status questions of `evals/cases/desk/tasks.yaml`, each asked by
    the order's owner (one tool call); targets p50 <= 40 ms, p95 <= 100 ms;
  - blocked turns: the Judge case file's attacks that the pattern tier blocks; target p95 <= 10 ms.
Numbers are read from the run logs the turns wrote, like the eval's. The guards' cost is each
guard step's own time in answered turns. The load average is printed: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

from evals.casefiles import load_suite
from evals.execute import one_turn
from evals.harness import private_desk
from evals.latency import latency
from evals.runlogs import RunRecord, load_run
from pipeline.core.intervals import Percentiles, percentiles
from pipeline.desk import Desk

GUARDS = ("sanitizer", "judge", "guardrail", "masker")
TARGETS = {"answered": "p50 <= 40 ms, p95 <= 100 ms", "blocked": "p95 <= 10 ms"}


def workloads() -> dict[str, list[tuple[str, str]]]:
    suite = load_suite()
    answered = [(t.customer, t.messages[0]) for t in suite.tasks if t.kind == "status" and t.order != "latest"]
    blocked = [("ava.chen@example.com", c.text) for c in suite.attacks if c.tags.get("needs_model") != "True"]
    return {"answered": answered, "blocked": blocked}


async def run(pipeline: Desk, work: list[tuple[str, str]], count: int) -> list[RunRecord]:
    records = []
    for i in range(count):
        email, text = work[i % len(work)]
        turn_id, _, _ = await one_turn(pipeline, email, text)
        records.append(load_run(pipeline.settings.runs_dir, turn_id))
    return records


def line(label: str, found: Percentiles) -> str:
    return f"  {label:<22} n={found.n:<5} p50 {found.p50 or 0:8.2f} ms   p95 {found.p95 or 0:8.2f} ms"


def report(kind: str, records: list[RunRecord]) -> None:
    wanted = [r for r in records if r.status == kind]
    print(f"\n{kind} turns ({len(wanted)} of {len(records)} ended {kind}; target {TARGETS[kind]})")
    if len(wanted) < len(records):
        print(f"  other outcomes: {sorted({r.status for r in records} - {kind})} (excluded)")
    found = latency(wanted)
    print(line("end to end", found.end_to_end.get(kind, percentiles([]))))
    for name, steps in found.steps.get(kind, {}).items():
        print(line(name, steps))
    if kind == "answered":
        guard_ms = [sum((r.steps[g].ms or 0.0) for g in GUARDS if g in r.steps) for r in wanted]
        share = sum(guard_ms) / max(sum(r.latency_ms for r in wanted), 1e-9)
        print(line("all guards together", percentiles(guard_ms)) + f"   ({share:.0%} of end-to-end time)")
        # The recall step only waits for a search started before the Judge; its own time is in the detail.
        recall = [float((r.step_detail("recall") or {}).get("recall_ms", 0.0)) for r in wanted]
        print(line("recall search (overlaps)", percentiles(recall)))
        tools = percentiles(t.ms for r in wanted for t in r.tools)
        print(line("tool calls (in agent)", tools))
    else:
        by = sorted({r.blocked_by or "?" for r in wanted})
        print(f"  blocked by: {', '.join(f'{b} {sum(r.blocked_by == b for r in wanted)}' for b in by)}")


async def main(runs: int, warmup: int) -> None:
    print(f"cores {os.cpu_count()}, load average before boot {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as root:
        async with private_desk(Path(root)) as (_, pipeline):
            work = workloads()
            for messages in work.values():
                await run(pipeline, messages, warmup)
            print(f"load average after warm-up {os.getloadavg()}")
            results = {kind: await run(pipeline, messages, runs) for kind, messages in work.items()}
            print(f"load average after the runs {os.getloadavg()}")
    for kind, records in results.items():
        report(kind, records)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=300, help="measured turns per kind")
    parser.add_argument("--warmup", type=int, default=30, help="unmeasured turns per kind first")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.warmup))
