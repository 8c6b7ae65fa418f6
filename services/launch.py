"""Start a desk process (guard, web, Phoenix) as a subprocess, wait for its health, stop it.

Used by the `make up` supervisor and by the test fixtures. Synchronous on purpose: both callers
start services before their own event loop matters, and a blocking wait keeps the code obvious.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx
from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import NoDecode

from pipeline.core.errors import GuardUnavailable, ServiceStartError
from pipeline.core.settings import Settings
from pipeline.core.settings.scope import Process, secret_fields, secrets_used

GuardName = Literal["judge", "masker"]
STDERR_TAIL_LINES = 40
#: The guards export no traces (the pipeline's turn spans time each guard call), so a2a-sdk's
#: eight no-op spans per request would cost ~0.15 ms of a 3 ms round-trip budget for nothing.
GUARD_ONLY_ENV = {"OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false"}
#: Inherited variables a guard is not given: credentials of anything (a shell's PGPASSWORD, a
#: provider key for LiteLLM). A guard needs none it is not handed through its settings.
SECRET_LOOKING = re.compile(r"PASS|SECRET|TOKEN|KEY|CREDENTIAL|AUTH|^PG|DATABASE_URL|DSN", re.IGNORECASE)


@dataclass
class RunningService:
    """A started process; `stderr_tail` keeps its last output lines for error messages."""

    name: str
    url: str
    process: subprocess.Popen[str]
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=STDERR_TAIL_LINES))
    drainer: threading.Thread | None = None

    def wait_output(self, timeout_s: float = 2.0) -> None:
        """After the process ended: wait until its last output lines are collected."""
        if self.drainer is not None:
            self.drainer.join(timeout_s)

    def last_stderr(self) -> str:
        return "".join(self.stderr_tail).rstrip() or "(no output)"


def env_var_name(name: str, info: FieldInfo) -> str:
    """The environment variable a settings field is read from (its alias, else its name)."""
    alias = info.validation_alias
    choices = getattr(alias, "choices", None)
    if choices:
        return str(choices[0]).upper()
    return str(alias or name).upper()


def _env_value(value: object, info: FieldInfo) -> str:
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        # pydantic-settings reads collections as JSON unless the field opts out with NoDecode.
        if NoDecode in info.metadata:
            return ",".join(str(item) for item in value)
        return json.dumps(list(value))
    return str(value)


def service_environment(settings: Settings, base: Mapping[str, str], process: Process = "desk") -> dict[str, str]:
    """`base` (PATH, HOME, ...) without any settings variable, plus `settings` as variables.

    Settings variables are dropped from `base` first, so a field left unset (None) in `settings`
    is unset in the service too, whatever the parent environment says. A guard (`process` judge
    or masker) gets only the secrets it uses, and no inherited variable that looks like one.
    """
    fields = Settings.model_fields
    names = {env_var_name(name, info) for name, info in fields.items()}
    env = {key: value for key, value in base.items() if key.upper() not in names}
    withheld: set[str] = set()
    if process != "desk":
        env = {key: value for key, value in env.items() if not SECRET_LOOKING.search(key)}
        withheld = set(secret_fields()) - secrets_used(settings, process)
    for name, info in fields.items():
        value = getattr(settings, name)
        if value is not None and name not in withheld:
            env[env_var_name(name, info)] = _env_value(value, info)
    return env


def guard_url(name: GuardName, settings: Settings) -> str:
    return settings.judge_url if name == "judge" else settings.masker_url


def start_process(
    name: str,
    argv: list[str],
    *,
    url: str,
    env: Mapping[str, str],
    cwd: Path | None = None,
    timeout_s: float = 30.0,
    log_path: Path | None = None,
) -> RunningService:
    """Run `argv` and return once `url`/healthz answers 200.

    Raises `ServiceStartError` naming the process and its last stderr lines if it exits or stays
    unhealthy for `timeout_s` (the process is stopped first). With `log_path`, its whole output
    is also appended there.
    """
    process = subprocess.Popen(argv, env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    service = RunningService(name=name, url=url, process=process)
    service.drainer = threading.Thread(target=_drain, args=(service, log_path), name=f"{name}-output", daemon=True)
    service.drainer.start()
    try:
        _wait_healthy(service, timeout_s)
    except ServiceStartError:
        stop_service(service)
        raise
    return service


def start_service(
    name: GuardName,
    settings: Settings,
    *,
    base_env: Mapping[str, str],
    cwd: Path | None = None,
    timeout_s: float = 30.0,
    log_path: Path | None = None,
) -> RunningService:
    """Run `python -m services.<name>` configured by `settings` (its host and port included).

    The child's environment is `service_environment(settings, base_env, name)` (no secret it
    does not use) plus `GUARD_ONLY_ENV`; a guard that does not become healthy raises `GuardUnavailable`.
    """
    try:
        return start_process(name, [sys.executable, "-m", f"services.{name}"], url=guard_url(name, settings),
                             env={**service_environment(settings, base_env, name), **GUARD_ONLY_ENV}, cwd=cwd,
                             timeout_s=timeout_s, log_path=log_path)
    except ServiceStartError as exc:
        raise GuardUnavailable(exc.detail, guard=name) from exc


def _drain(service: RunningService, log_path: Path | None) -> None:
    # Reading continuously keeps a chatty service from blocking on a full pipe.
    assert service.process.stderr is not None
    with ExitStack() as stack:
        # The reader closes the pipe once it has read it to its end (else: a ResourceWarning per process).
        stderr = stack.enter_context(service.process.stderr)
        log = stack.enter_context(log_path.open("a", encoding="utf-8")) if log_path else None
        for line in stderr:
            service.stderr_tail.append(line)
            if log is not None:
                log.write(line)
                log.flush()


def _wait_healthy(service: RunningService, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    with httpx.Client(timeout=1.0, trust_env=False) as http:
        while time.monotonic() < deadline:
            code = service.process.poll()
            if code is not None:
                service.wait_output()
                raise ServiceStartError(
                    f"{service.name} exited with code {code} before it was healthy:\n{service.last_stderr()}")
            try:
                if http.get(f"{service.url}/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
    raise ServiceStartError(
        f"{service.name} not healthy at {service.url} after {timeout_s:.0f} s:\n{service.last_stderr()}")


def stop_service(service: RunningService, grace_s: float = 5.0) -> int:
    """SIGTERM, then SIGKILL after `grace_s`; returns the exit code."""
    process = service.process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    service.wait_output()
    return process.returncode
