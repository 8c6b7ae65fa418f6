"""A private desk for tests, benchmarks and evals: temporary folders, free ports, fresh secrets."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from db.bootstrap import prepare_database
from db.embedded import EmbeddedPostgres
from evals.loopback import free_port
from pipeline.core.settings import Settings
from pipeline.desk import Desk
from services.launch import RunningService, start_service, stop_service
from toolbox.server import ToolboxServer

__all__ = ["free_port", "private_desk", "private_settings", "tricky_password"]


def tricky_password() -> str:
    # Characters that break URL-built connection strings must work end to end.
    return secrets.token_urlsafe(12) + "/+=@#"


def private_settings(root: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "postgres_password": tricky_password(),
        "postgres_reader_password": tricky_password(),
        "postgres_writer_password": tricky_password(),
        "supportdesk_demo_password": "demo-" + secrets.token_hex(4),
        "guard_token": secrets.token_urlsafe(18),
        "postgres_port": free_port(),
        "embedded_pg_dir": root / "pg",
        "toolbox_port": free_port(),
        "toolbox_signing_key_file": root / "toolbox-signing-key.json",
        "pending_action_key_file": root / "pending-action-key",
        "toolbox_jwks_port": free_port(),
        "judge_port": free_port(),
        "masker_port": free_port(),
        "web_port": free_port(),
        "phoenix_port": free_port(),
        "runs_dir": root / "runs",
        "mem0_dir": root / "mem0",
        "phoenix_working_dir": root / "phoenix",
        "tracing_enabled": False,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg, arg-type]


@asynccontextmanager
async def private_desk(root: Path, **overrides: object) -> AsyncIterator[tuple[Settings, Desk]]:
    """The whole desk on free loopback ports under `root`: PostgreSQL, Toolbox, Judge, Masker, Desk."""
    settings = private_settings(root, **overrides)
    await prepare_database(settings)
    toolbox = ToolboxServer(settings, log_path=root / "toolbox.log")
    started: list[RunningService] = []
    try:
        toolbox.start()
        for name in ("judge", "masker"):
            started.append(start_service(name, settings, base_env=os.environ, cwd=root, timeout_s=60.0))  # type: ignore[arg-type]
        pipeline = await Desk.build(settings)
        try:
            yield settings, pipeline
        finally:
            await pipeline.aclose()
    finally:
        for service in started:
            stop_service(service)
        toolbox.stop()
        EmbeddedPostgres(settings).stop()
