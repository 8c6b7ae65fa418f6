"""Session fixtures: the REAL guard services, started as subprocesses on free loopback ports.

Registered as a plugin by the root `conftest.py`. Settings come from `base_settings` (free ports,
nothing started): the guards need no database, so they do not wait for `desk_settings`' one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from guards.proof import GuardKeys
from pipeline.core.settings import Settings
from services.launch import GuardName, start_service, stop_service


@dataclass(frozen=True)
class GuardEndpoint:
    """A running guard: its base URL and the settings it was started with (they point at it)."""

    name: GuardName
    url: str
    settings: Settings

    @property
    def keys(self) -> GuardKeys:
        return GuardKeys.derive(self.settings.guard_secret)

    @property
    def auth(self) -> dict[str, str]:
        """The header that lets a caller in: the bearer derived from the guard's token."""
        return {"Authorization": self.keys.authorization}


@contextmanager
def running_guard(name: GuardName, settings: Settings, workdir: Path) -> Iterator[GuardEndpoint]:
    """Start `name` with `settings`; `workdir` as its cwd keeps a developer's `.env` out of it."""
    service = start_service(name, settings, base_env=os.environ, cwd=workdir, timeout_s=60.0)
    try:
        yield GuardEndpoint(name=name, url=service.url, settings=settings)
    finally:
        stop_service(service)


@pytest.fixture(scope="session")
def judge_service(base_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GuardEndpoint]:
    with running_guard("judge", base_settings, tmp_path_factory.mktemp("judge")) as endpoint:
        yield endpoint


@pytest.fixture(scope="session")
def masker_service(base_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GuardEndpoint]:
    with running_guard("masker", base_settings, tmp_path_factory.mktemp("masker")) as endpoint:
        yield endpoint


@pytest.fixture(scope="session", params=["judge", "masker"])
def guard_service(request: pytest.FixtureRequest) -> GuardEndpoint:
    """Each guard in turn, for the protocol behaviour both share."""
    endpoint: GuardEndpoint = request.getfixturevalue(f"{request.param}_service")
    return endpoint
