"""Start and stop the MCP Toolbox binary itself (not its Python wrapper, which would orphan it).

The desk's JWKS endpoint (toolbox/jwks.py) starts first and stops last: the Toolbox reads it at
start and when it refreshes keys.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
from toolbox_server.main import get_binary_path

from pipeline.core.errors import ToolboxUnavailable
from pipeline.core.settings import Settings
from toolbox.identity import load_or_create_key, public_jwks
from toolbox.jwks import JwksServer

CONFIG = Path(__file__).parent / "tools.yaml"


def toolbox_env(settings: Settings, *, auth_server: str) -> dict[str, str]:
    """The `${VAR}`s tools.yaml reads; the Toolbox exits at start if one is unset."""
    return {
        "TOOLBOX_AUTH_SERVER": auth_server,
        "TOOLBOX_PG_HOST": settings.pg_host,
        "TOOLBOX_PG_PORT": str(settings.postgres_port),
        "TOOLBOX_PG_DB": settings.postgres_db,
        "TOOLBOX_READER_USER": settings.postgres_reader_user,
        "TOOLBOX_READER_PASSWORD": settings.postgres_reader_password.get_secret_value(),
        "TOOLBOX_WRITER_USER": settings.postgres_writer_user,
        "TOOLBOX_WRITER_PASSWORD": settings.postgres_writer_password.get_secret_value(),
    }


def toolbox_argv(settings: Settings, *, log_level: str | None = None) -> list[str]:
    """The binary's command line; `python -m toolbox` and `ToolboxServer` both run exactly this."""
    # The Toolbox answers 403 to any other Host (it compares the name, not the port), which stops
    # DNS rebinding. --allowed-origins is CORS only: a page of another origin gets no
    # Access-Control-Allow-Origin, so its browser never sends the token header (not in the CORS
    # allowed headers anyway); a request without the token reaches no row (tools.yaml).
    own = f"{settings.toolbox_host}:{settings.toolbox_port}"
    argv = [get_binary_path(), "--config", str(CONFIG), "--address", settings.toolbox_host,
            "--port", str(settings.toolbox_port), "--allowed-hosts", settings.toolbox_host,
            "--allowed-origins", f"http://{own}", "--disable-version-check", "--disable-reload"]
    return argv + (["--log-level", log_level] if log_level else [])


class ToolboxServer:
    def __init__(self, settings: Settings, *, log_path: Path | None = None) -> None:
        self.settings = settings
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.jwks: JwksServer | None = None

    @property
    def url(self) -> str:
        return self.settings.toolbox_url

    def start(self, *, ready_timeout_s: float = 15.0) -> None:
        self.jwks = start_jwks(self.settings)
        # From here on a failure stops what was started: a JWKS listener left behind would hold
        # TOOLBOX_JWKS_PORT and make every later start fail.
        try:
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                   **toolbox_env(self.settings, auth_server=self.jwks.url)}
            with ExitStack() as stack:  # the child keeps its own copy of the log file; ours closes here
                log = stack.enter_context(open(self.log_path, "ab")) if self.log_path else subprocess.DEVNULL
                self.process = subprocess.Popen(toolbox_argv(self.settings, log_level="WARN"), env=env,
                                                stdout=log, stderr=log, start_new_session=True)
            self._wait_ready(ready_timeout_s)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=0.5, trust_env=False) as http:
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    raise ToolboxUnavailable(f"toolbox exited at start with code {self.process.returncode}"
                                             + (f"; see {self.log_path}" if self.log_path else ""))
                try:
                    if http.get(self.url + "/").status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                time.sleep(0.05)
        raise ToolboxUnavailable(f"toolbox not ready on {self.url} after {timeout_s}s")

    def stop(self, *, grace_s: float = 5.0) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.jwks is not None:
            self.jwks.stop()
            self.jwks = None


def start_jwks(settings: Settings) -> JwksServer:
    """The public half of the desk's signing key (created on first run), served on loopback."""
    server = JwksServer(public_jwks(load_or_create_key(settings.toolbox_signing_key_file)),
                        port=settings.toolbox_jwks_port)
    try:
        server.start()
    except OSError as exc:
        # Whoever holds the port would be trusted to publish the desk's keys: never start then.
        raise ToolboxUnavailable(f"cannot serve the desk's JWKS on {server.url} (TOOLBOX_JWKS_PORT): {exc}") from exc
    return server
