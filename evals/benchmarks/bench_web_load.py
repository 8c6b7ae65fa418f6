"""Load on the browser API: N logged-in customers chatting through /api/chat at once (offline model).

.venv/bin/python -m evals.benchmarks.bench_web_load [--levels 1,8,32] [--seconds 20] [--processes 1]

Boots a private desk (embedded PostgreSQL, Toolbox, Judge, Masker on free loopback ports) and
the web server as its own process (`python -m web`, as `make up` runs it; `--processes K` starts K
of them on their own ports, clients spread over them, like K workers sharing PostgreSQL). Each of N clients logs
in as a demo customer (sessions are reused across clients past 8), then sends order questions
back to back for `--seconds`, reading each NDJSON stream to its terminal event. Reported per N:
answered turns per second and p50/p95 of a turn's full stream time. Target at N=32: >= 40
answered turns/s with p95 <= 1 s. The per-customer chat limit is lifted for the run (it would
otherwise be what is measured). The load average is printed: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

from db.connect import connection
from evals.harness import free_port, private_desk
from pipeline import Settings
from services.launch import service_environment

QUESTIONS = ["What's the status of {order}?", "Where is my order {order}?", "Where is my latest order?",
             "Has {order} shipped yet?"]
UNLIMITED = {"chat_max_per_window": 10_000_000, "login_max_attempts": 10_000}


async def _orders(settings: Settings) -> dict[str, list[str]]:
    async with connection(settings) as conn:
        rows = await conn.fetch("SELECT customer_email, order_id FROM customer_orders ORDER BY order_id")
    orders: dict[str, list[str]] = {}
    for row in rows:
        orders.setdefault(row["customer_email"], []).append(row["order_id"])
    return orders


def _start_web(settings: Settings, root: Path, index: int) -> subprocess.Popen[bytes]:
    log = open(root / f"web-{index}.log", "wb")  # noqa: SIM115 - the child owns it for its lifetime
    return subprocess.Popen([sys.executable, "-m", "web"], env=service_environment(settings, os.environ), cwd=root,
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)


async def _wait_ready(url: str, process: subprocess.Popen[bytes], timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(trust_env=False) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit(f"web server exited with {process.returncode}")
            try:
                if (await http.get(f"{url}/readyz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.2)
    raise SystemExit("web server not ready")


async def _turn(client: httpx.AsyncClient, text: str) -> tuple[float, str]:
    start = time.perf_counter()
    async with client.stream("POST", "/api/chat", json={"message": text}) as response:
        if response.status_code != 200:
            await response.aread()
            return time.perf_counter() - start, f"http {response.status_code}"
        last = ""
        async for line in response.aiter_lines():
            if line:
                last = line
    event = json.loads(last) if last else {}
    return time.perf_counter() - start, event.get("status") or event.get("type", "no terminal event")


async def _client_loop(client: httpx.AsyncClient, orders: list[str], until: float, seed: int,
                       results: list[tuple[float, str]]) -> None:
    questions = itertools.cycle(QUESTIONS[seed % len(QUESTIONS):] + QUESTIONS[:seed % len(QUESTIONS)])
    picks = itertools.cycle(orders[seed % len(orders):] + orders[:seed % len(orders)])
    while time.monotonic() < until:
        results.append(await _turn(client, next(questions).format(order=next(picks))))


async def _level(urls: list[str], sessions: list[tuple[dict[str, str], list[str]]], n: int, seconds: float) -> None:
    load = os.getloadavg()
    clients = [httpx.AsyncClient(base_url=urls[i % len(urls)], cookies=sessions[i % len(sessions)][0], timeout=60,
                                 trust_env=False) for i in range(n)]
    results: list[tuple[float, str]] = []
    try:
        start = time.monotonic()
        await asyncio.gather(*(_client_loop(c, sessions[i % len(sessions)][1], start + seconds, i, results)
                               for i, c in enumerate(clients)))
        elapsed = time.monotonic() - start
    finally:
        for client in clients:
            await client.aclose()
    outcomes = Counter(status for _, status in results)
    times = sorted(t * 1000 for t, _ in results)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(f"N={n:>3}  turns={len(results):>5}  answered/s={outcomes['answered'] / elapsed:6.1f}  "
          f"p50={statistics.median(times):7.0f} ms  p95={p95:7.0f} ms  outcomes={dict(outcomes)}  "
          f"load(1m) before={load[0]:.1f}", flush=True)


async def main(levels: list[int], seconds: float, processes: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        root = Path(tmp)
        async with private_desk(root, **UNLIMITED) as (settings, _):
            workers = [settings.model_copy(update={"web_port": free_port()}) for _ in range(processes)]
            started = [_start_web(worker, root, index) for index, worker in enumerate(workers)]
            urls = [f"http://{worker.web_host}:{worker.web_port}" for worker in workers]
            url = urls[0]
            try:
                for worker_url, process in zip(urls, started, strict=True):
                    await _wait_ready(worker_url, process)
                password = settings.supportdesk_demo_password.get_secret_value()  # type: ignore[union-attr]
                sessions = []
                async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=30) as http:
                    for email, orders in (await _orders(settings)).items():
                        response = await http.post("/api/login", json={"email": email, "password": password})
                        response.raise_for_status()
                        sessions.append(({"sd_session": response.cookies["sd_session"]}, orders))
                        http.cookies.clear()
                await _level(urls, sessions, 2 * processes, 3.0)  # warm-up: first calls load caches and pools
                print(f"cores={os.cpu_count()}  model={settings.model_name}  web processes={processes}  "
                      f"{seconds:.0f} s per level")
                for n in levels:
                    await _level(urls, sessions, n, seconds)
            finally:
                for process in started:
                    process.terminate()
                    process.wait(timeout=30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="1,8,32", help="comma-separated numbers of concurrent customers")
    parser.add_argument("--seconds", type=float, default=20.0, help="duration of each level")
    parser.add_argument("--processes", type=int, default=1, help="web server processes (workers)")
    args = parser.parse_args()
    asyncio.run(main([int(n) for n in args.levels.split(",")], args.seconds, args.processes))
