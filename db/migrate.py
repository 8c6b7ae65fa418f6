"""Versioned SQL migrations (yoyo): applied versions are recorded, re-running is a no-op, and
each migration runs in a transaction, so a failed one rolls back."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from yoyo import get_backend, read_migrations

from pipeline.core.errors import DatabaseError
from pipeline.core.settings import Settings

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def _uri(settings: Settings) -> str:
    user = quote(settings.postgres_user, safe="")
    password = quote(settings.postgres_password.get_secret_value(), safe="")
    return (f"postgresql+psycopg://{user}:{password}@{settings.pg_host}:{settings.postgres_port}/"
            f"{quote(settings.postgres_db, safe='')}")


def apply_migrations(settings: Settings, migrations_dir: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply pending migrations; returns the ids applied now (empty when already current)."""
    try:
        backend = get_backend(_uri(settings))
    except Exception as exc:  # yoyo/psycopg raise driver-specific errors; all mean "cannot reach"
        raise DatabaseError(f"cannot open migration connection: {type(exc).__name__}: {exc}") from exc
    migrations = read_migrations(str(migrations_dir))
    with backend.lock():
        pending = backend.to_apply(migrations)
        try:
            backend.apply_migrations(pending)
        except Exception as exc:
            raise DatabaseError(f"migration failed and was rolled back: {exc}") from exc
    return [m.id for m in pending]
