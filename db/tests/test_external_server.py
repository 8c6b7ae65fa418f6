"""The same migrations, roles and seed against a real external PostgreSQL at 127.0.0.1:5432.

Runs when such a server answers (CI installs Debian's PostgreSQL for it); the administrator login
comes from TEST_EXTERNAL_PG_USER / TEST_EXTERNAL_PG_PASSWORD (default postgres/postgres).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator

import asyncpg
import pytest

from db.bootstrap import prepare_database
from db.connect import connection
from db.roles import verify_roles
from evals.harness import tricky_password
from pipeline.core.settings import Settings

pytestmark = pytest.mark.external_pg


async def _admin() -> asyncpg.Connection:
    try:
        return await asyncpg.connect(host="127.0.0.1", port=5432, database="postgres", timeout=2,
                                     user=os.environ.get("TEST_EXTERNAL_PG_USER", "postgres"),
                                     password=os.environ.get("TEST_EXTERNAL_PG_PASSWORD", "postgres"))
    except (OSError, asyncpg.PostgresError) as exc:
        message = f"no PostgreSQL administrator login at 127.0.0.1:5432 ({exc})"
        if os.environ.get("CI") == "true":
            pytest.fail(message + "; .ci/run starts Debian's PostgreSQL for this test")
        pytest.skip(message)


@pytest.fixture()
async def external_settings(base_settings: Settings) -> AsyncIterator[Settings]:
    """A fresh database and application role (CREATEROLE, owns the database) on the external server."""
    suffix = secrets.token_hex(4)
    names = {"db": f"sd_test_{suffix}", "app": f"sd_app_{suffix}", "reader": f"sd_reader_{suffix}",
             "writer": f"sd_writer_{suffix}"}
    settings = base_settings.model_copy(update={
        "postgres_host": "127.0.0.1", "postgres_port": 5432, "postgres_db": names["db"],
        "postgres_user": names["app"], "postgres_reader_user": names["reader"],
        "postgres_writer_user": names["writer"]})
    admin = await _admin()
    password = settings.postgres_password.get_secret_value()
    await admin.execute(await admin.fetchval("SELECT format('CREATE ROLE %I LOGIN CREATEROLE PASSWORD %L', $1::text, "
                                             "$2::text)", names["app"], password))
    await admin.execute(f'CREATE DATABASE "{names["db"]}" OWNER "{names["app"]}"')
    try:
        yield settings
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{names["db"]}" WITH (FORCE)')
        for role in ("reader", "writer", "app"):
            await admin.execute(f'DROP ROLE IF EXISTS "{names[role]}"')
        await admin.close()


async def test_migrations_roles_and_seed_twice_on_an_external_server(external_settings: Settings) -> None:
    assert "/" in tricky_password()  # the generated passwords exercise component-wise connection
    first = await prepare_database(external_settings)
    async with connection(external_settings) as conn:
        counts = [await conn.fetchval(f"SELECT count(*) FROM {t}") for t in ("users", "customer_orders")]
    second = await prepare_database(external_settings)
    async with connection(external_settings) as conn:
        assert [await conn.fetchval(f"SELECT count(*) FROM {t}") for t in ("users", "customer_orders")] == counts
    assert first == second and counts[1] >= 40
    await verify_roles(external_settings)
    async with connection(external_settings, role="reader") as conn:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("DELETE FROM customer_orders")
