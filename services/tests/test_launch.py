"""Entrypoints and launcher fail loudly and clearly: exit code 2 on bad settings, named errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.harness import private_settings
from evals.loopback import free_port, listening_socket, port_of
from pipeline.core.errors import GuardUnavailable
from pipeline.core.settings import Settings
from services.launch import GuardName, service_environment, start_service, stop_service


def run_guard(name: GuardName, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", f"services.{name}"], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("name", "variable", "value", "message"), [
    ("judge", "GUARD_TOKEN", None, "GUARD_TOKEN: is required but not set"),
    ("masker", "GUARD_TOKEN", None, "GUARD_TOKEN: is required but not set"),
    ("masker", "MASKER_TYPES", "", "MASKER_TYPES: Value error, must name at least one PII type"),
    ("masker", "MASKER_PORT", "not-a-port", "MASKER_PORT"),
], ids=["judge-without-token", "masker-without-token", "masker-types-blank", "masker-port-invalid"])
def test_bad_settings_exit_2_with_a_clear_message(base_settings: Settings, tmp_path: Path, name: GuardName,
                                                  variable: str, value: str | None, message: str) -> None:
    env = service_environment(base_settings, os.environ, name)
    env.pop(variable, None)
    if value is not None:
        env[variable] = value
    done = run_guard(name, env, tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_misspelt_setting_in_env_file_stops_start_up_naming_it(base_settings: Settings, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("MASKER_TYPE=EMAIL\nSOMETHING_ELSE=1\n", encoding="utf-8")
    done = run_guard("masker", service_environment(base_settings, os.environ, "masker"), tmp_path)
    assert done.returncode == 2
    assert "MASKER_TYPE: not a setting (did you mean MASKER_TYPES?)" in done.stderr
    assert "SOMETHING_ELSE" not in done.stderr and "Traceback" not in done.stderr


SECRETS = {"google_api_key": "g-key-1", "litellm_api_key": "l-key-2", "mem0_api_key": "m-key-3",
           "supportdesk_demo_password": "demo-pw-4"}
INHERITED = {"PGPASSWORD": "inherited-5", "OPENAI_API_KEY": "inherited-6", "AWS_SECRET_ACCESS_KEY": "inherited-7"}


def _secret_values(settings: Settings) -> set[str]:
    values = {getattr(settings, name).get_secret_value() for name in SECRETS}
    values |= {settings.postgres_password.get_secret_value(), settings.postgres_reader_password.get_secret_value(),
               settings.postgres_writer_password.get_secret_value()}
    return values | set(INHERITED.values())


@pytest.mark.parametrize("name", ["judge", "masker"])
def test_a_running_guard_holds_no_database_password_or_unused_key(tmp_path: Path, name: GuardName) -> None:
    """Read from the live process (/proc/<pid>/environ): the offline Judge and the Masker get no key at all."""
    settings = private_settings(tmp_path, supportdesk_model="offline", **SECRETS)
    service = start_service(name, settings, base_env={**os.environ, **INHERITED}, cwd=tmp_path, timeout_s=60)
    try:
        environ = Path(f"/proc/{service.process.pid}/environ").read_bytes().decode().split("\0")
    finally:
        stop_service(service)
    values = {entry.split("=", 1)[1] for entry in environ if "=" in entry}
    assert values & _secret_values(settings) == set()
    assert settings.guard_secret.get_secret_value() in values


def test_a_judge_on_a_hosted_model_gets_only_that_models_key(tmp_path: Path) -> None:
    settings = private_settings(tmp_path, **SECRETS)
    env = service_environment(settings, {**os.environ, **INHERITED}, "judge")
    assert env["GOOGLE_API_KEY"] == SECRETS["google_api_key"]  # no SUPPORTDESK_MODEL: Gemini, with its key
    assert set(env.values()) & (_secret_values(settings) - {SECRETS["google_api_key"]}) == set()


def test_a_service_that_cannot_bind_is_reported_by_name(base_settings: Settings, tmp_path: Path) -> None:
    with listening_socket() as taken:
        settings = base_settings.model_copy(update={"masker_port": port_of(taken)})
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
