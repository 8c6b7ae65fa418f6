"""What the guards' embedder reads of a message: a bounded head, whatever the script."""

from __future__ import annotations

import pytest

from guards.classifier.embedders import EMBED_CHARS, EMBED_TOKENS, E5Embedder, shared_embedder


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    embedder = shared_embedder("e5")
    assert isinstance(embedder, E5Embedder)
    return embedder


@pytest.mark.parametrize("text", ["😀" * 2000, "我的订单在哪里？" * 120, "👩‍👩‍👧‍👦" * 300, "ab😀" * 400])
def test_a_token_dense_message_is_cut_to_the_token_budget(e5: E5Embedder, text: str) -> None:
    head = e5.head(text)
    assert text.startswith(head) and head
    assert e5._model.token_count(head, is_query=True) <= EMBED_TOKENS
    # The longest prefix within the budget: one more character goes over it.
    assert e5._model.token_count(text[:len(head) + 1], is_query=True) > EMBED_TOKENS


@pytest.mark.parametrize("text", ["Where is my order ORD-10042?", "Where is my order? " * 30])
def test_english_keeps_its_first_characters(e5: E5Embedder, text: str) -> None:
    assert e5.head(text) == text[:EMBED_CHARS]
