"""Entrypoint shared by `python -m services.judge` and `python -m services.masker`."""

from __future__ import annotations

import sys
from collections.abc import Callable

import uvicorn
from starlette.applications import Starlette

from pipeline.errors import ConfigError
from pipeline.settings import Settings, load_settings
from pipeline.settings_scope import Process


def run(name: Process, build_app: Callable[[Settings], Starlette],
        address: Callable[[Settings], tuple[str, int]]) -> int:
    """Read settings once, build the app once, serve until SIGTERM. 2 = configuration error.

    Settings are read for this guard: it needs GUARD_TOKEN and holds no other secret it does not use.
    """
    try:
        settings = load_settings(process=name)
        app = build_app(settings)
    except ConfigError as exc:
        print(f"{name}: {exc.detail}", file=sys.stderr)
        return 2
    host, port = address(settings)
    # No access log and no Server header: one line per screened message is noise, the header a hint.
    uvicorn.run(app, host=host, port=port, access_log=False, server_header=False, log_level="info")
    return 0
