"""The Judge's reading of a message longer than its model reads at once: piece by piece.

The Judge's classifier reads a message's first `EMBED_CHARS` (160 tokens). A customer who pastes a
document sends more, and the classifier scored such a message by its kind of text — an invoice or
a tracking table read as an attack, an instruction hidden after the first reading went unread
(evals/JOURNAL.md, "Batch 21"). So a longer message is cut into `pieces` of at most `PIECE_CHARS`
by line and sentence, a small network over each piece's e5 vector (one hidden layer) gives
P(block), and the highest decides against the reader's own threshold. Its files sit beside the Judge's
(`long.json`, `long.weights.npy`, pinned in the same `pins.json`, card `long.md`); they are built
by `supportdesk train judge-long` (`guards/classifier/long_training.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from guards.classifier import logreg
from guards.classifier.artefact import load_pinned
from guards.classifier.embedders import EMBED_CHARS, E5Embedder, shared_e5
from guards.classifier.features import Features, Floats, Sparse
from pipeline.core.errors import ConfigError

NAME = "long"
#: Characters of one piece: about a sentence or two, so one hidden instruction is most of the piece
#: that holds it instead of a small part of a document's worth of text.
PIECE_CHARS = 250
# A sentence ends at punctuation followed by white space ("02:41" and "3.5 kg" stay whole); the
# group keeps the punctuation so it can be put back on its sentence.
_SENTENCE_END = re.compile(r"([.!?;:])\s+")


class LongReaderMeta(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    piece_chars: int = Field(gt=0)
    dense_scale: float
    hidden: int = Field(ge=0, description="Units of the hidden layer over the e5 vector (0 = logistic regression)")
    threshold: float = Field(description="Block iff the highest piece's P(block) >= threshold")
    threshold_rule: str
    training_counts: dict[str, dict[str, int]] = Field(description="source -> label -> pieces or texts")


def _sentences(text: str, size: int) -> Iterator[str]:
    for line in text.splitlines():
        parts = _SENTENCE_END.split(line.strip())
        for sentence in ("".join(parts[i:i + 2]).strip() for i in range(0, len(parts), 2)):
            while len(sentence) > size:  # no sentence end in sight: cut at a space
                cut = sentence.rfind(" ", 0, size)
                cut = cut if cut > size // 2 else size
                yield sentence[:cut].strip()
                sentence = sentence[cut:].strip()
            if sentence:
                yield sentence


def pieces(text: str, size: int = PIECE_CHARS) -> list[str]:
    """`text`'s sentences packed greedily into pieces of at most `size` characters, in order."""
    out: list[str] = []
    current = ""
    for sentence in _sentences(text, size):
        if current and len(current) + 1 + len(sentence) > size:
            out.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        out.append(current)
    return out or [text[:size]]


def vectors_only(vectors: Floats) -> Features:
    """Features of e5 vectors alone: the reader has no n-gram columns (pieces are too short to
    carry a style worth learning, and a source's style is what n-grams learn)."""
    return Features(vectors, Sparse(np.zeros(len(vectors) + 1, np.int64), np.zeros(0, np.int64),
                                    np.zeros(0, np.float32), 0))


def piece_probabilities(weights: np.ndarray, vectors: Floats, dense_scale: float, hidden: int) -> Floats:
    """P(block) of each piece from its e5 vector."""
    return logreg.probabilities(weights, vectors_only(vectors), dense_scale, hidden)


class LongReader:
    """Scores a long message by its most suspicious piece; built once per process."""

    model_id = f"judge-{NAME}"

    def __init__(self, meta: LongReaderMeta, weights: np.ndarray, embedder: E5Embedder) -> None:
        self.meta = meta
        self._weights = weights.astype(np.float64)
        self._embedder = embedder

    @classmethod
    def load(cls, directory: Path) -> LongReader:
        meta, weights = load_pinned(directory, NAME, LongReaderMeta)
        if weights.shape != (logreg.size(E5Embedder.dims, 0, meta.hidden),):
            raise ConfigError(f"guard model {NAME}: weights shape {weights.shape} does not fit its meta")
        return cls(meta, weights, shared_e5())

    def reads_at_once(self, message: str) -> bool:
        """Whether the Judge's own model reads all of `message` (then this reader is not needed)."""
        # Longer than EMBED_CHARS is never read at once; only a shorter one costs a token count.
        return len(message) <= EMBED_CHARS and self._embedder.head(message) == message

    def score(self, message: str) -> float:
        """The highest P(block) over the message's pieces."""
        vectors = self._embedder.embed(pieces(message, self.meta.piece_chars))
        return float(piece_probabilities(self._weights, vectors, self.meta.dense_scale, self.meta.hidden).max())
