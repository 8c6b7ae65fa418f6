"""Connections to the desk's PostgreSQL from settings components (no URL quoting needed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from pipeline.core.errors import DatabaseError
from pipeline.core.settings import Settings

#: What asyncpg raises when the server is unreachable or a statement fails.
DB_FAILURES = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)


def connect_kwargs(settings: Settings, *, role: str = "app", database: str | None = None) -> dict[str, Any]:
    users = {
        "app": (settings.postgres_user, settings.postgres_password),
        "reader": (settings.postgres_reader_user, settings.postgres_reader_password),
        "writer": (settings.postgres_writer_user, settings.postgres_writer_password),
    }
    user, password = users[role]
    return {
        "host": settings.pg_host,
        "port": settings.postgres_port,
        "user": user,
        "password": password.get_secret_value(),
        "database": database or settings.postgres_db,
        "timeout": settings.db_timeout_s,
        "command_timeout": settings.db_timeout_s,
    }


@asynccontextmanager
async def connection(settings: Settings, *, role: str = "app", database: str | None = None
                     ) -> AsyncIterator[asyncpg.Connection]:
    try:
        conn = await asyncpg.connect(**connect_kwargs(settings, role=role, database=database))
    except asyncpg.InvalidPasswordError as exc:
        hint = (f" The embedded server in {settings.embedded_pg_dir} keeps the passwords it was created with:"
                " restore them in .env, or delete that folder to start over." if settings.embedded_postgres else "")
        raise DatabaseError(f"PostgreSQL rejected the password of the {role} role.{hint}") from exc
    except DB_FAILURES as exc:
        raise DatabaseError(f"cannot connect to PostgreSQL at {settings.pg_host}:{settings.postgres_port} "
                            f"as {role}: {exc}") from exc
    try:
        yield conn
    finally:
        await conn.close()


async def create_pool(settings: Settings, *, min_size: int = 1, max_size: int = 10) -> asyncpg.Pool:
    try:
        return await asyncpg.create_pool(min_size=min_size, max_size=max_size,
                                         **connect_kwargs(settings))
    except DB_FAILURES as exc:
        raise DatabaseError(f"cannot open a pool to PostgreSQL: {exc}") from exc


async def execute_formatted(conn: asyncpg.Connection, template: str, *args: str) -> None:
    """Run `format(template, *args)` built by the server: utility statements (CREATE, GRANT) take no
    bind parameters, so the server quotes identifiers (%I) and literals (%L) instead of us."""
    placeholders = ", ".join(f"${i + 1}::text" for i in range(len(args)))
    statement = await conn.fetchval(f"SELECT format({template!r}, {placeholders})", *args)
    await conn.execute(statement)


async def ensure_database(settings: Settings) -> None:
    """Create the desk's database on first start (the embedded cluster only has `postgres`)."""
    async with connection(settings, database="postgres") as conn:
        exists = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", settings.postgres_db)
        if not exists:
            await execute_formatted(conn, "CREATE DATABASE %I", settings.postgres_db)
