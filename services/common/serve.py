"""Entrypoint shared by `python -m services.judge` and `python -m services.masker`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import uvicorn
from starlette.applications import Starlette

from pipeline.core.errors import ConfigError
from pipeline.core.heap import settle_heap
from pipeline.core.settings import JudgeSettings, MaskerSettings

GuardSettings = TypeVar("GuardSettings", JudgeSettings, MaskerSettings)


def run(name: str, load: Callable[[], GuardSettings], build_app: Callable[[GuardSettings], Starlette],
        address: Callable[[GuardSettings], tuple[str, int]]) -> int:
    """Read settings once, build the app once, serve until SIGTERM. 2 = configuration error.

    Settings are read for this guard: it needs GUARD_TOKEN and holds no other secret it does not use.
    """
    try:
        settings = load()
        app = build_app(settings)
    except ConfigError as exc:
        print(f"{name}: {exc.detail}", file=sys.stderr)
        return 2
    host, port = address(settings)
    settle_heap()
    # No access log and no Server header: one line per screened message is noise, the header a hint.
    uvicorn.run(app, host=host, port=port, access_log=False, server_header=False, log_level="info")
    return 0
