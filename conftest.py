"""Test-wide fixtures: each package contributes its own real-service fixtures as a plugin.

The suite is hermetic by construction: `pytest_configure` removes every variable that would
switch the desk to a hosted model or Mem0 Cloud before any settings are read (child processes
inherit the cleaned environment), and sets `SUPPORTDESK_OFFLINE_ONLY=1` so that a hosted client
built anyway — by a test that sets a key itself — fails loudly unless it points at a loopback
replay server (`pipeline/core/outbound.py`).
"""

import os

import pytest

from pipeline.core.outbound import HOSTED_SWITCHES, OFFLINE_ONLY_ENV

pytest_plugins = [
    "db.tests.fixtures",
    "toolbox.tests.fixtures",
    "services.tests.fixtures",
    "guards.embedding.tests.fixtures",
    "pipeline.tests.fixtures",
    "web.tests.fixtures",
]


def pytest_configure(config: pytest.Config) -> None:
    for name in HOSTED_SWITCHES:
        os.environ.pop(name, None)
    os.environ[OFFLINE_ONLY_ENV] = "1"
