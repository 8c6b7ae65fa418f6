"""Counting what an e5 embedder's engine computes, for tests that say how often a text is embedded."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import pytest

from guards.classifier.embedders import E5Embedder


def engine_queries(embedder: E5Embedder, monkeypatch: pytest.MonkeyPatch, *, forget: bool = False) -> list[str]:
    """The texts `embedder`'s engine computes from now on; `forget` empties its memo first (earlier
    tests in the process may have embedded the same words)."""
    if forget:
        monkeypatch.setattr(embedder, "_memo", OrderedDict())
    computed: list[str] = []
    query = embedder._model.query

    def counting(texts: Sequence[str]) -> object:
        computed.extend(texts)
        return query(texts)

    monkeypatch.setattr(embedder._model, "query", counting)
    return computed
