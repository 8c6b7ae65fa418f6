"""The tool roles have exactly their rights, enforced by PostgreSQL itself."""

from __future__ import annotations

import asyncpg
import pytest

from db.connect import connection
from db.roles import provision_roles, verify_roles
from pipeline.core.errors import ConfigError
from pipeline.core.settings import Settings

READER_FORBIDDEN = [
    "INSERT INTO customer_orders SELECT * FROM customer_orders LIMIT 0",
    "UPDATE customer_orders SET status = 'cancelled'",
    "DELETE FROM customer_orders",
    "INSERT INTO actions_log (customer_email, order_id, action, idempotency_key) "
    "VALUES ('a@example.com', 'ORD-10001', 'return_request', repeat('r', 20))",
    "UPDATE actions_log SET action = 'cancel_request'",
    "DELETE FROM actions_log",
    "SELECT * FROM users",
    "SELECT * FROM actions_log",
    "SELECT * FROM web_sessions",
    "UPDATE users SET full_name = 'x'",
    "CREATE TABLE sneaky (id int)",
    "CREATE TEMP TABLE sneaky (id int)",
]
WRITER_FORBIDDEN = [
    "UPDATE customer_orders SET status = 'cancelled'",
    "DELETE FROM customer_orders",
    "UPDATE actions_log SET action = 'cancel_request'",
    "DELETE FROM actions_log",
    "SELECT * FROM users",
    "SELECT email FROM users",
    "SELECT * FROM actions_log",
    "INSERT INTO users (email, full_name, password_hash) VALUES ('x@example.com', 'x', 'x')",
    "TRUNCATE actions_log",
    "CREATE TABLE sneaky (id int)",
]


@pytest.mark.parametrize("statement", READER_FORBIDDEN)
async def test_reader_cannot(desk_settings: Settings, statement: str) -> None:
    async with connection(desk_settings, role="reader") as conn:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute(statement)


@pytest.mark.parametrize("statement", WRITER_FORBIDDEN)
async def test_writer_cannot(desk_settings: Settings, statement: str) -> None:
    async with connection(desk_settings, role="writer") as conn:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute(statement)


async def test_reader_reads_orders(desk_settings: Settings) -> None:
    async with connection(desk_settings, role="reader") as conn:
        assert await conn.fetchval("SELECT count(*) FROM customer_orders") >= 40


async def test_database_refuses_unknown_action(desk_settings: Settings) -> None:
    async with connection(desk_settings, role="writer") as conn:
        with pytest.raises(asyncpg.CheckViolationError):
            await conn.execute(
                "INSERT INTO actions_log (customer_email, order_id, action, idempotency_key) "
                "SELECT customer_email, order_id, 'refund_everything', 'bad-action-key-000001' "
                "FROM customer_orders LIMIT 1")


async def test_same_idempotency_key_twice_leaves_one_row(desk_settings: Settings) -> None:
    key = "unit-test-idempotency-0001"
    async with connection(desk_settings, role="writer") as conn:
        for _ in range(2):
            await conn.execute(
                "INSERT INTO actions_log (customer_email, order_id, action, idempotency_key) "
                "SELECT customer_email, order_id, 'return_request', $1 FROM customer_orders "
                "ORDER BY order_id LIMIT 1 ON CONFLICT DO NOTHING", key)
    async with connection(desk_settings) as conn:
        assert await conn.fetchval("SELECT count(*) FROM actions_log WHERE idempotency_key = $1", key) == 1


@pytest.mark.parametrize("extra_grant", [
    "GRANT UPDATE ON customer_orders TO {reader}",
    "GRANT SELECT (email) ON users TO {writer}",
    "GRANT DELETE ON actions_log TO {writer}",
    "GRANT {writer} TO {reader}",
    "ALTER ROLE {reader} CREATEROLE",
])
async def test_role_with_more_rights_fails_verification_until_converged(
        desk_settings: Settings, extra_grant: str) -> None:
    statement = extra_grant.format(reader=desk_settings.postgres_reader_user,
                                   writer=desk_settings.postgres_writer_user)
    async with connection(desk_settings) as conn:
        await conn.execute(statement)
    with pytest.raises(ConfigError, match="exactly their rights"):
        await verify_roles(desk_settings)
    await provision_roles(desk_settings)
    await verify_roles(desk_settings)


async def test_the_embedded_application_role_is_no_superuser(desk_settings: Settings) -> None:
    async with connection(desk_settings) as conn:
        attrs = await conn.fetchrow(
            "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls FROM pg_roles "
            "WHERE rolname = $1", desk_settings.postgres_user)
        owner = await conn.fetchval("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1",
                                    desk_settings.postgres_db)
        # What only a superuser may do: run a program on the server, read its files, change its config.
        for statement in ("COPY (SELECT 1) TO PROGRAM 'true'", "SELECT pg_read_file('PG_VERSION')",
                          "ALTER SYSTEM SET work_mem = '8MB'", "CREATE DATABASE sneaky"):
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await conn.execute(statement)
    assert attrs is not None and dict(attrs) == {"rolsuper": False, "rolcreatedb": False, "rolcreaterole": True,
                           "rolreplication": False, "rolbypassrls": False}
    assert owner == desk_settings.postgres_user
