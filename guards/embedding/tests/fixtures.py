"""Session fixtures for any package's tests (pytest plugin: guards.embedding.tests.fixtures).

`embedder` is the English MiniLM that memory reads; `e5` is the multilingual embedder the guard
classifiers and the offline agent's intents read (`guards.classifier.embedders`).
"""

from __future__ import annotations

import pytest

from guards.classifier.embedders import E5Embedder, shared_e5
from guards.embedding import Embedder


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """One embedder for the whole test session, as in the desk (loading costs ~0.3-1 s)."""
    return Embedder.load()


@pytest.fixture(scope="session")
def e5() -> E5Embedder:
    """The process-wide e5 embedder, as the desk's Guardrail and offline agent share it (~1 s)."""
    return shared_e5()
