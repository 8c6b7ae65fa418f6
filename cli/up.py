"""`make up`: set up and run every part of the desk in the foreground, stop them all on Ctrl-C.

One desk per checkout: a lock file makes a second `make up` say so and exit. Children are
stopped in reverse start order on SIGINT/SIGTERM, so no Toolbox or service is orphaned.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import FrameType

from rich.console import Console

from cli.envfile import ensure_local_secrets
from db.bootstrap import prepare_database
from db.embedded import EmbeddedPostgres
from pipeline.core.settings import Settings, load_settings
from services.launch import service_environment, start_process, start_service, stop_service
from services.phoenix import start_phoenix
from toolbox.server import ToolboxServer

STATE_DIR = Path(".supportdesk")


class AlreadyRunning(Exception):
    pass


def _acquire_lock() -> int:
    STATE_DIR.mkdir(exist_ok=True)
    fd = os.open(STATE_DIR / "up.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        owner = os.read(fd, 32).decode().strip() or "?"
        os.close(fd)
        raise AlreadyRunning(owner) from None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


class Desk:
    """The children of one `make up`, in start order."""

    def __init__(self, settings: Settings, console: Console) -> None:
        self.settings = settings
        self.console = console
        self._stops: list[tuple[str, Callable[[], object]]] = []
        self.demo_emails: list[str] = []

    def start(self) -> None:
        settings, console = self.settings, self.console
        if settings.embedded_postgres:
            # Registered first: a migration or seed that fails must not leave the server running.
            # (Stopping a server that never started does nothing.)
            self._stops.append(("PostgreSQL", EmbeddedPostgres(settings).stop))
        with console.status("Preparing PostgreSQL (first run creates the embedded cluster)…"):
            summary = asyncio.run(prepare_database(settings))
        self.demo_emails = summary.customers if summary else []
        console.print(f"[green]✓[/] PostgreSQL on {settings.pg_host}:{settings.postgres_port} "
                      f"(migrated, roles verified, {summary.orders if summary else 0} demo orders)")
        logs = STATE_DIR / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        with console.status("Starting MCP Toolbox…"):
            toolbox = ToolboxServer(settings, log_path=logs / "toolbox.log")
            toolbox.start()
        self._stops.append(("Toolbox", toolbox.stop))
        console.print(f"[green]✓[/] MCP Toolbox on {toolbox.url}")
        for name in ("judge", "masker"):
            with console.status(f"Starting the {name} service…"):
                service = start_service(name, settings, base_env=os.environ,  # type: ignore[arg-type]
                                        log_path=logs / f"{name}.log")
            self._stops.append((name, partial(stop_service, service)))
            console.print(f"[green]✓[/] {name.capitalize()} on {service.url}")
        with console.status("Starting Arize Phoenix (about 10 s)…"):
            phoenix = start_phoenix(settings, log_path=logs / "phoenix.log")
        self._stops.append(("Phoenix", partial(stop_service, phoenix)))
        console.print(f"[green]✓[/] Phoenix traces on {phoenix.url}")
        with console.status("Starting the web chat…"):
            web = start_process("web", [sys.executable, "-m", "web"], url=self.chat_url,
                                env=service_environment(settings, os.environ), log_path=logs / "web.log",
                                timeout_s=60.0)
        self._stops.append(("web", partial(stop_service, web)))
        console.print(f"[green]✓[/] Web chat on {self.chat_url}")

    @property
    def chat_url(self) -> str:
        return f"http://{self.settings.web_host}:{self.settings.web_port}"

    def stop(self) -> None:
        while self._stops:
            name, stop = self._stops.pop()
            try:
                stop()
            except Exception as exc:  # keep stopping the rest; say what could not be stopped
                self.console.print(f"[red]could not stop {name}:[/] {exc}")


def run_up(console: Console) -> int:
    generated = ensure_local_secrets()
    try:
        lock = _acquire_lock()
    except AlreadyRunning as running:
        console.print(f"[yellow]Supportdesk is already running from this folder (pid {running}).[/] "
                      "Stop it with Ctrl-C in its terminal first.")
        return 1
    settings = load_settings()
    desk = Desk(settings, console)
    stopped = threading.Event()

    def _on_signal(signum: int, _: FrameType | None) -> None:
        stopped.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    try:
        desk.start()
        _print_ready(console, desk, generated)
        stopped.wait()
        console.print("Stopping…")
    finally:
        desk.stop()
        os.close(lock)
    return 0


def _print_ready(console: Console, desk: Desk, generated: dict[str, str]) -> None:
    settings = desk.settings
    password = settings.supportdesk_demo_password.get_secret_value() if settings.supportdesk_demo_password else "?"
    console.rule("[bold]Supportdesk is up")
    console.print(f"Chat:   [bold]{desk.chat_url}[/]   (or: .venv/bin/supportdesk chat --email EMAIL)")
    console.print(f"Traces: {settings.phoenix_url}   (operators only: log in as admin@localhost with "
                  "PHOENIX_DEFAULT_ADMIN_INITIAL_PASSWORD from .env)")
    console.print(f"Model: {settings.model_name} · memory: {settings.memory_backend}")
    console.print(f"Demo logins (password [bold]{password}[/]"
                  + (", generated into .env" if "SUPPORTDESK_DEMO_PASSWORD" in generated else "") + "):")
    for email in desk.demo_emails:
        console.print(f"  {email}")
    console.print("Press Ctrl-C to stop everything.")
