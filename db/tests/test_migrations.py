"""Migrations and seed are repeatable; a failed migration leaves nothing behind."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from db.bootstrap import prepare_database
from db.connect import connection
from db.migrate import MIGRATIONS_DIR, apply_migrations
from db.seed import seed
from pipeline.core.errors import DatabaseError
from pipeline.core.ids import ORDER_ID_SQL_CHECK, WRITTEN_PATTERN
from pipeline.core.settings import Settings

STATUSES = {"processing", "shipped", "out for delivery", "delivered", "returned", "cancelled"}


async def _counts(settings: Settings) -> dict[str, int]:
    async with connection(settings) as conn:
        return {table: await conn.fetchval(f"SELECT count(*) FROM {table}")
                for table in ("users", "customer_orders", "_yoyo_migration")}


async def test_running_migrations_and_seed_again_changes_nothing(desk_settings: Settings) -> None:
    before = await _counts(desk_settings)
    assert await asyncio.to_thread(apply_migrations, desk_settings) == []
    await prepare_database(desk_settings)
    assert await _counts(desk_settings) == before


async def test_seed_has_customers_and_orders_in_every_status(desk_settings: Settings) -> None:
    summary = await seed(desk_settings)
    assert len(summary.customers) >= 6 and summary.orders >= 40
    async with connection(desk_settings) as conn:
        statuses = {r[0] for r in await conn.fetch("SELECT DISTINCT status FROM customer_orders")}
        per_customer = await conn.fetch("SELECT customer_email, count(*) FROM customer_orders GROUP BY 1")
    assert statuses == STATUSES
    assert len(per_customer) == len(summary.customers)


async def test_the_database_and_the_desk_define_an_order_id_alike(desk_settings: Settings) -> None:
    async with connection(desk_settings) as conn:
        checks = await conn.fetch("SELECT pg_get_constraintdef(oid) AS body FROM pg_constraint "
                                  "WHERE conrelid = 'customer_orders'::regclass AND contype = 'c'")
        ids = [row["order_id"] for row in await conn.fetch("SELECT order_id FROM customer_orders")]
    bodies = [re.sub(r"::text|[()]", "", row["body"]) for row in checks]
    assert "CHECK " + ORDER_ID_SQL_CHECK in bodies
    assert ids and all(re.fullmatch(WRITTEN_PATTERN, order) for order in ids)


async def test_failed_migration_rolls_back(desk_settings: Settings, tmp_path: Path) -> None:
    for source in MIGRATIONS_DIR.glob("*.sql"):
        (tmp_path / source.name).write_text(source.read_text())
    (tmp_path / "0004.broken.sql").write_text(
        "-- depends: 0003.vector\nCREATE TABLE half_done (id int);\nINSERT INTO no_such_table VALUES (1);\n")
    with pytest.raises(DatabaseError, match="rolled back"):
        await asyncio.to_thread(apply_migrations, desk_settings, tmp_path)
    async with connection(desk_settings) as conn:
        assert await conn.fetchval("SELECT to_regclass('public.half_done')") is None
        assert not await conn.fetchval(
            "SELECT count(*) FROM _yoyo_migration WHERE migration_id = '0004.broken'")


async def test_unreachable_database_is_a_typed_error(base_settings: Settings, unused_port: int) -> None:
    settings = base_settings.model_copy(update={"postgres_port": unused_port, "db_timeout_s": 1.0})
    with pytest.raises(DatabaseError, match="cannot connect"):
        async with connection(settings):
            pass
