"""Entrypoints and launcher fail loudly and clearly: exit code 2 on bad settings, named errors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from db.tests.fixtures import free_port
from pipeline.errors import GuardUnavailable
from pipeline.settings import Settings
from services.launch import GuardName, service_environment, start_service, stop_service


@pytest.mark.parametrize(("name", "variable", "value"),
                         [("judge", "POSTGRES_PASSWORD", None), ("masker", "MASKER_PORT", "not-a-port")])
def test_bad_settings_exit_2_with_a_clear_message(base_settings: Settings, tmp_path: Path, name: GuardName,
                                                  variable: str, value: str | None) -> None:
    env = service_environment(base_settings, os.environ)
    env.pop(variable)
    if value is not None:
        env[variable] = value
    done = subprocess.run([sys.executable, "-m", f"services.{name}"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert variable in done.stderr
    assert "Traceback" not in done.stderr


def test_a_service_that_cannot_bind_is_reported_by_name(base_settings: Settings, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        settings = base_settings.model_copy(update={"masker_port": taken.getsockname()[1]})
        with pytest.raises(GuardUnavailable, match=r"(?s)masker exited with code \d+.*address already in use"):
            start_service("masker", settings, base_env=os.environ, cwd=tmp_path, timeout_s=60)


def test_stop_terminates_the_service_and_its_log_is_kept(base_settings: Settings, tmp_path: Path) -> None:
    log = tmp_path / "masker.log"
    service = start_service("masker", base_settings.model_copy(update={"masker_port": free_port()}),
                            base_env=os.environ, cwd=tmp_path, timeout_s=60, log_path=log)
    stop_service(service, grace_s=10)
    assert service.process.poll() is not None
    assert "Application shutdown complete" in service.last_stderr()  # SIGTERM was handled, not killed
    assert "Application shutdown complete" in log.read_text()
