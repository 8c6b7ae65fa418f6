"""One call that makes the database ready: server (embedded or external), schema, roles, demo data."""

from __future__ import annotations

import asyncio

from db.connect import ensure_database
from db.embedded import EmbeddedPostgres
from db.migrate import apply_migrations
from db.roles import provision_roles
from db.seed import SeedSummary, seed
from pipeline.core.settings import Settings


async def prepare_database(settings: Settings, *, seed_demo: bool = True) -> SeedSummary | None:
    if settings.embedded_postgres:
        await asyncio.to_thread(EmbeddedPostgres(settings).start)
    await ensure_database(settings)
    await asyncio.to_thread(apply_migrations, settings)
    await provision_roles(settings)
    return await seed(settings) if seed_demo else None
