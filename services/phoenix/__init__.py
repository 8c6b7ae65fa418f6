"""Arize Phoenix as a desk process: traces land here over OTLP/HTTP and survive restarts.

Phoenix lives in its own virtualenv (`settings.phoenix_venv`, made by the Makefile from
`requirements.txt` beside this file): see that file for why it cannot share the desk's.

It runs with authentication on: every request (the UI, REST, OTLP) needs a login or a token.
Operators log in as `admin@localhost` with `PHOENIX_DEFAULT_ADMIN_INITIAL_PASSWORD`; the desk
exports with `PHOENIX_ADMIN_SECRET`. Its OTLP gRPC receiver is off (`serve.py`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pipeline.core.errors import ServiceStartError
from pipeline.core.settings import Settings
from services.launch import RunningService, start_process, stop_service
from services.phoenix.admin import secure_default_admin

#: Phoenix is ready in ~10 s on this machine; give a loaded machine room.
READY_TIMEOUT_S = 90.0


SERVE = Path(__file__).with_name("serve.py")
#: Settings field -> Phoenix's variable; Phoenix refuses to start with auth on and no secret.
SECRETS = {
    "phoenix_secret": "PHOENIX_SECRET",
    "phoenix_admin_secret": "PHOENIX_ADMIN_SECRET",
    "phoenix_default_admin_initial_password": "PHOENIX_DEFAULT_ADMIN_INITIAL_PASSWORD",
}


def _secrets(settings: Settings) -> dict[str, str]:
    values = {name: getattr(settings, field) for field, name in SECRETS.items()}
    missing = [name for name, value in values.items() if value is None]
    if missing:
        raise ServiceStartError(f"Phoenix runs with authentication and needs {', '.join(missing)} "
                                "(`make up` generates them into .env)")
    return {name: value.get_secret_value() for name, value in values.items()}


def phoenix_environment(settings: Settings, base: Mapping[str, str]) -> dict[str, str]:
    return {
        # Only what Phoenix uses: none of the desk's database passwords or keys.
        **{k: v for k, v in base.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ")},
        "PHOENIX_WORKING_DIR": str(settings.phoenix_working_dir.resolve()),
        "PHOENIX_HOST": settings.phoenix_host,
        "PHOENIX_PORT": str(settings.phoenix_port),
        "PHOENIX_ENABLE_AUTH": "true",
        **_secrets(settings),
        # Offline by default: no look-ups of outside hosts, no telemetry.
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }


def start_phoenix(settings: Settings, *, base_env: Mapping[str, str] | None = None,
                  log_path: Path | None = None) -> RunningService:
    python = settings.phoenix_venv / "bin" / "python"
    if not python.exists():
        raise ServiceStartError(f"Phoenix is not installed in {settings.phoenix_venv} (`make up` or `make test` "
                                "installs it)")
    settings.phoenix_working_dir.mkdir(parents=True, exist_ok=True)
    service = start_process("phoenix", [str(python), "-I", str(SERVE)],
                            url=settings.phoenix_url, env=phoenix_environment(settings, base_env or os.environ),
                            timeout_s=READY_TIMEOUT_S, log_path=log_path)
    try:
        secure_default_admin(settings)
    except BaseException:
        stop_service(service)
        raise
    return service
