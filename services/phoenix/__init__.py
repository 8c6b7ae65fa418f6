"""Arize Phoenix as a desk process: traces land here over OTLP/HTTP and survive restarts.

Phoenix lives in its own virtualenv (`settings.phoenix_venv`, made by the Makefile from
`requirements.txt` beside this file): see that file for why it cannot share the desk's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pipeline.errors import ServiceStartError
from pipeline.settings import Settings
from services.launch import RunningService, start_process

#: Phoenix is ready in ~10 s on this machine; give a loaded machine room.
READY_TIMEOUT_S = 90.0


def phoenix_environment(settings: Settings, base: Mapping[str, str]) -> dict[str, str]:
    return {
        **{k: v for k, v in base.items() if not k.startswith("PHOENIX_")},
        "PHOENIX_WORKING_DIR": str(settings.phoenix_working_dir.resolve()),
        "PHOENIX_HOST": settings.phoenix_host,
        "PHOENIX_PORT": str(settings.phoenix_port),
        "PHOENIX_GRPC_PORT": str(settings.phoenix_grpc_port),
        # Offline by default: no look-ups of outside hosts, no telemetry.
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }


def start_phoenix(settings: Settings, *, base_env: Mapping[str, str] | None = None,
                  log_path: Path | None = None) -> RunningService:
    python = settings.phoenix_venv / "bin" / "python"
    if not python.exists():
        raise ServiceStartError(f"Phoenix is not installed in {settings.phoenix_venv} (`make up` or `make test` "
                                "installs it)")
    settings.phoenix_working_dir.mkdir(parents=True, exist_ok=True)
    return start_process("phoenix", [str(python), "-m", "phoenix.server.main", "serve"],
                         url=settings.phoenix_url, env=phoenix_environment(settings, base_env or os.environ),
                         timeout_s=READY_TIMEOUT_S, log_path=log_path)
