"""`python -m web`: serve the chat on settings.web_host:web_port (reads the settings once)."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Generator
from contextlib import contextmanager

import uvicorn

from pipeline import ConfigError, Settings, SupportdeskError, load_settings
from web.app import server_config
from web.resources import open_resources

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Server(uvicorn.Server):
    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        # uvicorn re-raises the stop signal after its shutdown, which would end the process before
        # our own resources close (pool, pipeline, pending trace export): stop gracefully instead.
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


async def serve(settings: Settings) -> None:
    async with open_resources(settings) as desk:
        await _Server(server_config(desk, log_level="info", timeout_graceful_shutdown=10)).serve()


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"supportdesk web: {exc.user_message}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(settings))
    except SupportdeskError as exc:
        # The operator's terminal: the internal detail helps them fix the dependency.
        print(f"supportdesk web: cannot start: {exc.detail}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
