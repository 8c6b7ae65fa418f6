"""Session fixture `embedder`, for any package's tests (pytest plugin: guards.embedding.tests.fixtures)."""

from __future__ import annotations

import pytest

from guards.embedding import Embedder


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """One embedder for the whole test session, as in the desk (loading costs ~0.3-1 s)."""
    return Embedder.load()
