"""The two tool roles, converged to exactly their rights and verified.

reader: CONNECT, USAGE on schema public, SELECT on customer_orders.
writer: CONNECT, USAGE on schema public, SELECT on customer_orders, INSERT on actions_log.
The embedded application role itself: LOGIN CREATEROLE, owner of the desk's database, no superuser.

`provision_roles` creates or alters each role until it has exactly these rights (extra grants,
column grants and memberships are revoked); `verify_roles` checks the effective rights and raises
ConfigError on any difference, so a role with more rights stops start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from db.connect import connection, execute_formatted
from pipeline.core.errors import ConfigError
from pipeline.core.settings import Settings

TABLE_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
COLUMN_PRIVILEGES = frozenset({"SELECT", "INSERT", "UPDATE", "REFERENCES"})


@dataclass(frozen=True)
class RoleSpec:
    name: str
    password: str
    grants: dict[str, frozenset[str]]


def role_specs(settings: Settings) -> list[RoleSpec]:
    return [
        RoleSpec(settings.postgres_reader_user, settings.postgres_reader_password.get_secret_value(),
                 {"customer_orders": frozenset({"SELECT"})}),
        RoleSpec(settings.postgres_writer_user, settings.postgres_writer_password.get_secret_value(),
                 {"customer_orders": frozenset({"SELECT"}), "actions_log": frozenset({"INSERT"})}),
    ]


async def _converge(conn: asyncpg.Connection, spec: RoleSpec, database: str) -> None:
    if not await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", spec.name):
        await execute_formatted(conn, "CREATE ROLE %I LOGIN", spec.name)
    await execute_formatted(conn, "ALTER ROLE %I WITH LOGIN NOINHERIT PASSWORD %L", spec.name, spec.password)
    # Only a role holding an attribute (a superuser for the first three) may even name it, and the
    # application role is no superuser and has no CREATEDB: touch each one only when it is set;
    # without the right to clear it, verification below stops start-up.
    attrs = await conn.fetchrow("SELECT rolsuper, rolreplication, rolbypassrls, rolcreatedb, rolcreaterole "
                                "FROM pg_roles WHERE rolname = $1", spec.name)
    for column, clause in (("rolsuper", "NOSUPERUSER"), ("rolreplication", "NOREPLICATION"),
                           ("rolbypassrls", "NOBYPASSRLS"), ("rolcreatedb", "NOCREATEDB"),
                           ("rolcreaterole", "NOCREATEROLE")):
        if attrs is not None and attrs[column]:
            await execute_formatted(conn, f"ALTER ROLE %I WITH {clause}", spec.name)
    for (group,) in await conn.fetch(
        "SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
        "JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1", spec.name):
        await execute_formatted(conn, "REVOKE %I FROM %I", group, spec.name)
    for (table, column) in await conn.fetch(
        "SELECT DISTINCT table_name, column_name FROM information_schema.column_privileges "
        "WHERE grantee = $1 AND table_schema = 'public'", spec.name):
        await execute_formatted(conn, "REVOKE ALL (%I) ON public.%I FROM %I", column, table, spec.name)
    await execute_formatted(conn, "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM %I", spec.name)
    await execute_formatted(conn, "REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM %I", spec.name)
    await execute_formatted(conn, "REVOKE ALL ON SCHEMA public FROM %I", spec.name)
    await execute_formatted(conn, "REVOKE ALL ON DATABASE %I FROM %I", database, spec.name)
    await execute_formatted(conn, "GRANT CONNECT ON DATABASE %I TO %I", database, spec.name)
    await execute_formatted(conn, "GRANT USAGE ON SCHEMA public TO %I", spec.name)
    for table, privileges in spec.grants.items():
        for privilege in sorted(privileges):
            await execute_formatted(conn, "GRANT %s ON public.%I TO %I", privilege, table, spec.name)


async def provision_roles(settings: Settings) -> None:
    async with connection(settings) as conn:
        # PUBLIC's default TEMP right would give the tool roles a place to write.
        await execute_formatted(conn, "REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC", settings.postgres_db)
        async with conn.transaction():
            for spec in role_specs(settings):
                await _converge(conn, spec, settings.postgres_db)
    await verify_roles(settings)


async def role_differences(conn: asyncpg.Connection, spec: RoleSpec, database: str) -> list[str]:
    problems: list[str] = []
    attrs = await conn.fetchrow(
        "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin "
        "FROM pg_roles WHERE rolname = $1", spec.name)
    if attrs is None:
        return [f"{spec.name}: role does not exist"]
    for attr in ("rolsuper", "rolcreatedb", "rolcreaterole", "rolreplication", "rolbypassrls"):
        if attrs[attr]:
            problems.append(f"{spec.name}: has {attr}")
    memberships = await conn.fetchval(
        "SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1",
        spec.name)
    if memberships:
        problems.append(f"{spec.name}: is a member of {memberships} other role(s)")
    for privilege, expected in (("CONNECT", True), ("CREATE", False), ("TEMPORARY", False)):
        if await conn.fetchval("SELECT has_database_privilege($1, $2, $3)", spec.name, database, privilege) != expected:
            problems.append(f"{spec.name}: database {privilege} should be {expected}")
    if await conn.fetchval("SELECT has_schema_privilege($1, 'public', 'CREATE')", spec.name):
        problems.append(f"{spec.name}: can CREATE in schema public")
    tables = [r[0] for r in await conn.fetch(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'p')")]
    for table in tables:
        expected_privs = spec.grants.get(table, frozenset())
        for privilege in TABLE_PRIVILEGES:
            column_level = privilege in COLUMN_PRIVILEGES
            has = await conn.fetchval(
                "SELECT has_table_privilege($1, format('public.%I', $2::text), $3) "
                "OR ($4 AND has_any_column_privilege($1, format('public.%I', $2::text), $3))",
                spec.name, table, privilege, column_level)
            if has != (privilege in expected_privs):
                problems.append(f"{spec.name}: {privilege} on {table} should be {privilege in expected_privs}")
    for (sequence,) in await conn.fetch(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind = 'S'"):
        for privilege in ("USAGE", "SELECT", "UPDATE"):
            if await conn.fetchval("SELECT has_sequence_privilege($1, format('public.%I', $2::text), $3)",
                                   spec.name, sequence, privilege):
                problems.append(f"{spec.name}: {privilege} on sequence {sequence} should be False")
    return problems


async def verify_roles(settings: Settings) -> None:
    async with connection(settings) as conn:
        problems = await _embedded_app_problems(conn, settings) if settings.embedded_postgres else []
        for spec in role_specs(settings):
            problems += await role_differences(conn, spec, settings.postgres_db)
    if problems:
        raise ConfigError("database roles do not have exactly their rights:\n  " + "\n  ".join(problems))


async def _embedded_app_problems(conn: asyncpg.Connection, settings: Settings) -> list[str]:
    """The embedded application role has CREATEROLE and nothing else (`db/embedded.py`)."""
    attrs = await conn.fetchrow("SELECT rolsuper, rolcreatedb, rolreplication, rolbypassrls FROM pg_roles "
                                "WHERE rolname = current_user")
    if attrs is None or not any(attrs.values()):
        return []
    if attrs["rolsuper"]:
        return [f"{settings.postgres_user}: is a superuser; the embedded database in {settings.embedded_pg_dir} "
                "was created by an older desk: delete that folder to recreate it (demo data is seeded again)"]
    return [f"{settings.postgres_user}: has {name}" for name, value in attrs.items() if value]
