"""A private desk for tests, benchmarks and evals: temporary folders, free ports, fresh secrets."""

from __future__ import annotations

import secrets
import socket
from pathlib import Path

from pipeline.settings import Settings


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tricky_password() -> str:
    # Characters that break URL-built connection strings must work end to end.
    return secrets.token_urlsafe(12) + "/+=@#"


def private_settings(root: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "postgres_password": tricky_password(),
        "postgres_reader_password": tricky_password(),
        "postgres_writer_password": tricky_password(),
        "supportdesk_demo_password": "demo-" + secrets.token_hex(4),
        "postgres_port": free_port(),
        "embedded_pg_dir": root / "pg",
        "toolbox_port": free_port(),
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
