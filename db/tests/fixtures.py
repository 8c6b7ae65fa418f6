"""Session fixtures: settings with free loopback ports, and a real embedded PostgreSQL."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from db.bootstrap import prepare_database
from db.embedded import EmbeddedPostgres
from evals.harness import free_port, private_settings
from pipeline.core.settings import Settings


def require_system_binary(name: str) -> str:
    """A missing system package skips locally, but fails under CI, where .ci/run installs it."""
    path = shutil.which(name)
    if path is None:
        message = f"system package providing {name!r} is not installed (.ci/run installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@contextmanager
def pg_folder() -> Iterator[Path]:
    """A folder for an embedded PostgreSQL's data, outside pytest's base folder.

    The server runs as another user, and every pytest session that starts (another suite on this
    machine, say) makes pytest's base folder private to its owner again, which would lock a
    server out of its own files mid-test.
    """
    root = Path(tempfile.mkdtemp(prefix="supportdesk-test-pg-"))
    try:
        yield root / "pg"
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def base_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings for a private desk: temporary folders, free ports, generated secrets; nothing started."""
    with pg_folder() as pgdata:
        yield private_settings(tmp_path_factory.mktemp("desk"), embedded_pg_dir=pgdata)


@pytest.fixture(scope="session")
async def desk_settings(base_settings: Settings) -> AsyncIterator[Settings]:
    """`base_settings` with a running embedded PostgreSQL: migrated, roles provisioned, demo data seeded."""
    await prepare_database(base_settings)
    yield base_settings
    EmbeddedPostgres(base_settings).stop()


@pytest.fixture(scope="session")
def demo_password(desk_settings: Settings) -> str:
    assert desk_settings.supportdesk_demo_password is not None
    return desk_settings.supportdesk_demo_password.get_secret_value()


@pytest.fixture()
def unused_port() -> Iterator[int]:
    yield free_port()
