"""p50/p95 of one bound tool call through the real MCP Toolbox (target p50 <= 3 ms).

.venv/bin/python -m evals.benchmarks.bench_toolbox [--calls N]

Boots a private embedded PostgreSQL and Toolbox on free ports, then times `get-order-status`
and `find-customer-orders` for a seeded customer through the desk's own client (a fresh ES256 token
per call for the session's email, verified by the Toolbox), after a warm-up.
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
from toolbox.client import ToolboxGateway
from toolbox.scope import ToolScope, bound_to
from toolbox.server import ToolboxServer

CUSTOMER = "ava.chen@example.com"


def _quantiles(samples: list[float]) -> str:
    cuts = statistics.quantiles(samples, n=100)
    return f"p50 {cuts[49]:7.2f} ms   p95 {cuts[94]:7.2f} ms"


async def _time_calls(gateway: ToolboxGateway, calls: int, tool: str, **args: str) -> list[float]:
    samples = []
    with bound_to(ToolScope(CUSTOMER, "bench")):
        for _ in range(calls):
            started = time.perf_counter()
            await gateway.call(tool, **args)
            samples.append((time.perf_counter() - started) * 1000)
    return samples


async def main(calls: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = private_settings(Path(tmp))
        await prepare_database(settings)
        server = ToolboxServer(settings, log_path=Path(tmp) / "toolbox.log")
        server.start()
        gateway = ToolboxGateway.from_settings(settings)
        try:
            await gateway.load()
            await _time_calls(gateway, 50, "get-order-status", order_id="ORD-10001")
            print(f"cores {os.cpu_count()}, load average {os.getloadavg()}, {calls} calls each")
            for tool, args in (("get-order-status", {"order_id": "ORD-10001"}), ("find-customer-orders", {})):
                print(f"  {tool:22} {_quantiles(await _time_calls(gateway, calls, tool, **args))}")
        finally:
            await gateway.aclose()
            server.stop()
            EmbeddedPostgres(settings).stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    asyncio.run(main(parser.parse_args().calls))
