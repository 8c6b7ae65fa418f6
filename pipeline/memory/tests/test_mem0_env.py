"""Mem0 must be imported with telemetry off and its state under MEM0_DIR (fresh processes)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

PREPARED_FIRST = """
import sys
from pathlib import Path
from pipeline.memory.mem0_env import prepare_mem0
prepare_mem0(Path(sys.argv[1]))
import mem0.client.main
from mem0.memory import setup, telemetry
assert telemetry.MEM0_TELEMETRY is False, "telemetry on"
assert Path(setup.mem0_dir) == Path(sys.argv[1]).resolve(), setup.mem0_dir
"""

IMPORTED_TOO_EARLY = """
import sys
from pathlib import Path
import mem0.memory.telemetry
from pipeline.core.errors import ConfigError
from pipeline.memory.mem0_env import prepare_mem0
try:
    prepare_mem0(Path(sys.argv[1]))
except ConfigError:
    sys.exit(0)
sys.exit("prepare_mem0 accepted a mem0 imported with telemetry on")
"""


async def _run(code: str, tmp_path: Path) -> tuple[int, str]:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path / "home")}
    child = await asyncio.create_subprocess_exec(sys.executable, "-c", code, str(tmp_path / "state"), cwd=tmp_path,
                                                 env=env, stderr=asyncio.subprocess.PIPE)
    _, stderr = await asyncio.wait_for(child.communicate(), timeout=120)
    return child.returncode or 0, stderr.decode()


@pytest.mark.parametrize("code", [PREPARED_FIRST, IMPORTED_TOO_EARLY], ids=["prepared", "too-early"])
async def test_mem0_environment(code: str, tmp_path: Path) -> None:
    returncode, stderr = await _run(code, tmp_path)
    assert returncode == 0, stderr[-2000:]
    if code is PREPARED_FIRST:
        assert (tmp_path / "state" / "config.json").exists()
        assert not (tmp_path / "home" / ".mem0").exists()
