"""Mem0 reads its environment when first imported: prepare it before any `import mem0`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pipeline.core.errors import ConfigError


def prepare_mem0(mem0_dir: Path) -> Path:
    """Turn Mem0's telemetry off and point its state folder at `mem0_dir`; call before importing mem0.

    Left alone, importing mem0 sends analytics, fetches a remote notice file and writes `~/.mem0`.
    Returns the absolute state folder (created). Raises ConfigError if mem0 was already imported
    with telemetry on, since its module-level flag can no longer be changed.
    """
    folder = mem0_dir.expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["MEM0_DIR"] = str(folder)
    telemetry = sys.modules.get("mem0.memory.telemetry")
    if telemetry is not None and getattr(telemetry, "MEM0_TELEMETRY", True):
        raise ConfigError("mem0 was imported before its telemetry was turned off; "
                          "import it only through pipeline.memory")
    return folder
