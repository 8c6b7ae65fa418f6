"""Shape, normalisation, determinism and meaning of the local embedder's vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from guards.embedding import Embedder

CASES = yaml.safe_load(Path(__file__).with_name("texts.yaml").read_text())
# The last shape case is repeated far past the 256-token limit to exercise truncation.
SHAPES = [*CASES["shapes"][:-1], CASES["shapes"][-1] * 200]


@pytest.fixture(scope="module")
def uncached() -> Embedder:
    """An embedder that computes every vector, for properties the shared cache would hide."""
    return Embedder.load(cache_size=0)


@pytest.mark.parametrize("text", SHAPES, ids=range(len(SHAPES)))
def test_one_unit_row_of_384_finite_floats(embedder: Embedder, text: str) -> None:
    vector = embedder.embed_one(text)
    assert vector.shape == (384,)
    assert vector.dtype == np.float32
    assert np.isfinite(vector).all()
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_batch_keeps_order_and_matches_single_texts(uncached: Embedder) -> None:
    batch = uncached.embed(SHAPES)
    assert batch.shape == (len(SHAPES), 384)
    singles = np.stack([uncached.embed_one(text) for text in SHAPES])
    # Padding to the longest text of a batch must not change any vector.
    np.testing.assert_allclose(batch, singles, atol=1e-5)


def test_same_text_same_vector_every_time(uncached: Embedder) -> None:
    text = CASES["shapes"][2]
    first = uncached.embed_one(text)
    for _ in range(3):
        np.testing.assert_array_equal(uncached.embed_one(text), first)


def test_a_fresh_embedder_gives_the_same_vectors(embedder: Embedder, uncached: Embedder) -> None:
    np.testing.assert_array_equal(uncached.embed(SHAPES[:4]), embedder.embed(SHAPES[:4]))


def test_no_texts_give_an_empty_matrix(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, 384)


def test_a_bare_string_is_refused(embedder: Embedder) -> None:
    # A str is a Sequence[str] of characters: embedding it letter by letter is always a bug.
    with pytest.raises(TypeError):
        embedder.embed("where is my order")


@pytest.mark.parametrize("triple", CASES["similarity"], ids=lambda t: t[0][:24])
def test_paraphrases_are_closer_than_unrelated_text(embedder: Embedder, triple: list[str]) -> None:
    a, b, other = embedder.embed(triple)
    assert float(a @ b) > float(a @ other) + 0.2
    assert float(a @ b) > float(b @ other) + 0.2


def test_cached_vectors_equal_fresh_ones_and_cannot_be_corrupted(embedder: Embedder, uncached: Embedder) -> None:
    fresh = uncached.embed(SHAPES)
    first = embedder.embed(SHAPES)
    first[:] = 0.0  # the caller owns what it gets back
    np.testing.assert_array_equal(embedder.embed(SHAPES), fresh)


def test_the_cache_is_bounded_and_keeps_recent_texts() -> None:
    small = Embedder.load(cache_size=2)
    small.embed(["one", "two", "three"])
    assert list(small._cache) == ["two", "three"]
    small.embed_one("two")
    small.embed_one("four")
    assert list(small._cache) == ["two", "four"]
