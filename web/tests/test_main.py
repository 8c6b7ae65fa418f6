"""`python -m web` as an operator runs it: a clear message on bad settings, a served desk otherwise."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from evals.loopback import free_port, refusing_port
from services.launch import service_environment

ROOT = Path(__file__).resolve().parents[2]


def _start(env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "web"], env={**env, "PYTHONPATH": str(ROOT)}, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_missing_settings_exit_2_with_a_clear_message(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.upper().startswith("POSTGRES_")}
    process = _start(env, tmp_path)  # tmp_path has no .env either
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "POSTGRES_PASSWORD" in stderr
    assert "Traceback" not in stderr


def test_serves_the_desk_on_its_configured_port(desk_settings: Any, toolbox_server: Any, judge_service: Any,
                                                masker_service: Any, tmp_path: Path) -> None:
    settings = desk_settings.model_copy(update={"web_port": free_port()})
    process = _start(service_environment(settings, os.environ), tmp_path)
    url = f"http://{settings.web_host}:{settings.web_port}"
    try:
        deadline = time.monotonic() + 120
        ready = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                ready = httpx.get(f"{url}/readyz", timeout=2.0, trust_env=False)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert ready is not None, process.stderr.read() if process.stderr else ""
        assert ready.status_code == 200, ready.text
        assert httpx.get(f"{url}/", trust_env=False).headers["content-type"].startswith("text/html")
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr


def test_a_dependency_down_at_start_exits_1_without_a_traceback(desk_settings: Any, tmp_path: Path) -> None:
    with refusing_port() as toolbox_down:
        settings = desk_settings.model_copy(update={"web_port": free_port(), "toolbox_port": toolbox_down})
        process = _start(service_environment(settings, os.environ), tmp_path)
        _, stderr = process.communicate(timeout=120)
    assert process.returncode == 1
    assert "cannot start" in stderr and "Traceback" not in stderr
