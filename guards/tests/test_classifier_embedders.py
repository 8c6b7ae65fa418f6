"""What the guards' embedder reads of a message (a bounded head, whatever the script), and how
often it reads it (once while the text is remembered)."""

from __future__ import annotations

import numpy as np
import pytest

from guards.classifier.embedders import EMBED_CHARS, EMBED_TOKENS, E5Embedder
from guards.tests.e5_queries import engine_queries


@pytest.mark.parametrize("text", ["😀" * 2000, "我的订单在哪里？" * 120, "👩‍👩‍👧‍👦" * 300, "ab😀" * 400])
def test_a_token_dense_message_is_cut_to_the_token_budget(e5: E5Embedder, text: str) -> None:
    head = e5.head(text)
    assert text.startswith(head) and head
    assert e5._model.token_count(head) <= EMBED_TOKENS
    # The longest prefix within the budget: one more character goes over it.
    assert e5._model.token_count(text[:len(head) + 1]) > EMBED_TOKENS


@pytest.mark.parametrize("text", ["Where is my order ORD-10042?", "Where is my order? " * 30])
def test_english_keeps_its_first_characters(e5: E5Embedder, text: str) -> None:
    assert e5.head(text) == text[:EMBED_CHARS]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> tuple[E5Embedder, list[str]]:
    """A fresh e5 remembering two texts, and the texts its engine was asked to embed."""
    embedder = E5Embedder(memo_size=2)
    asked = engine_queries(embedder, monkeypatch)
    return embedder, asked


def test_each_text_is_embedded_once_while_it_is_remembered(counted: tuple[E5Embedder, list[str]]) -> None:
    embedder, asked = counted
    first = embedder.embed_one("where is my order")
    both = embedder.embed(["where is my order", "hello", "hello"])
    np.testing.assert_array_equal(both[0], first)
    np.testing.assert_array_equal(both[1], both[2])
    assert asked == ["where is my order", "hello"]


def test_the_memo_forgets_the_least_recently_used_text(counted: tuple[E5Embedder, list[str]]) -> None:
    embedder, asked = counted
    for text in ("a", "b", "a", "c", "a", "b"):
        embedder.embed_one(text)
    assert asked == ["a", "b", "c", "b"]


def test_a_reader_cannot_change_what_the_next_reader_gets(e5: E5Embedder) -> None:
    text = "Wo ist mein Paket?"
    fresh = e5.embed_one(text).copy()
    e5.embed_one(text)[:] = 0.0
    np.testing.assert_array_equal(e5.embed_one(text), fresh)
    assert e5.embed([]).shape == (0, 384)
    with pytest.raises(TypeError):
        e5.embed(text)
