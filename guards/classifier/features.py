"""Features: a sentence embedding (dense) beside hashed character n-grams (sparse).

The n-grams catch what embeddings blur: spelling of attack vocabulary in any language, order-id
shapes, chat-template markers. They are hashed (CRC-32, stable across processes, unlike `hash`)
into `buckets` columns, counted log(1 + n), and the row is L2-normalised.
"""

from __future__ import annotations

import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from guards.classifier.splits import normalise

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class NgramSpec:
    buckets: int = 1 << 15
    min_n: int = 2
    max_n: int = 4
    #: Longest text read for n-grams, characters: bounds the cost of a long message.
    max_chars: int = 1000


@dataclass(frozen=True)
class Sparse:
    """CSR rows: `indptr[i]:indptr[i+1]` slices `cols`/`vals` of row i."""

    indptr: Ints
    cols: Ints
    vals: Floats
    width: int

    @property
    def rows(self) -> int:
        return len(self.indptr) - 1

    def row_ids(self) -> Ints:
        return np.repeat(np.arange(self.rows), np.diff(self.indptr))

    def take(self, index: Ints) -> Sparse:
        parts = [(self.cols[self.indptr[i]:self.indptr[i + 1]], self.vals[self.indptr[i]:self.indptr[i + 1]])
                 for i in index]
        lengths = np.array([len(c) for c, _ in parts], dtype=np.int64)
        indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        cols = np.concatenate([c for c, _ in parts]) if parts else np.zeros(0, np.int64)
        vals = np.concatenate([v for _, v in parts]) if parts else np.zeros(0, np.float32)
        return Sparse(indptr, cols.astype(np.int64), vals.astype(np.float32), self.width)


def ngram_row(text: str, spec: NgramSpec) -> tuple[Ints, Floats]:
    padded = f" {normalise(text)[: spec.max_chars]} "
    counts: dict[int, int] = {}
    for n in range(spec.min_n, spec.max_n + 1):
        for i in range(len(padded) - n + 1):
            col = zlib.crc32(padded[i:i + n].encode("utf-8")) % spec.buckets
            counts[col] = counts.get(col, 0) + 1
    cols = np.fromiter(counts, dtype=np.int64, count=len(counts))
    vals = np.log1p(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))
    norm = float(np.linalg.norm(vals)) or 1.0
    return cols, (vals / norm).astype(np.float32)


def ngrams(texts: Sequence[str], spec: NgramSpec) -> Sparse:
    rows = [ngram_row(text, spec) for text in texts]
    lengths = np.array([len(c) for c, _ in rows], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    cols = np.concatenate([c for c, _ in rows]) if rows else np.zeros(0, np.int64)
    vals = np.concatenate([v for _, v in rows]) if rows else np.zeros(0, np.float32)
    return Sparse(indptr, cols, vals, spec.buckets)


#: What a message's words do not show but its shape does: adversarial suffixes
#: ("Herezak({[HTMLsvg readers | Sure]"), code and markup, shouting, scripts mixed to hide words.
#: Held out, these five columns took the Judge from 80.9% to 82.4% of attacks blocked at the same
#: 0.6% of retail turns falsely blocked; the Guardrail does worse with them (evals/JOURNAL.md,
#: "Shape fractions for the Judge").
#: Message length was tried too and left out: "long means attack" would refuse long complaints.
SHAPE = ("symbols", "brackets", "upper_letters", "scripts", "digits")
_BRACKETS = frozenset("{}[]()<>|\\`^~$%=")


def shape_row(text: str, max_chars: int) -> list[float]:
    text = text[:max_chars]
    n = max(len(text), 1)
    letters = [c for c in text if c.isalpha()]
    scripts = {unicodedata.name(c, "UNNAMED ").split(" ")[0] for c in letters}
    return [sum(1 for c in text if not c.isalnum() and not c.isspace()) / n,
            sum(1 for c in text if c in _BRACKETS) / n,
            sum(1 for c in letters if c.isupper()) / max(len(letters), 1),
            min(len(scripts), 4) / 4,
            sum(1 for c in text if c.isdigit()) / n]


def shape_columns(texts: Sequence[str], max_chars: int) -> Floats:
    return np.array([shape_row(t, max_chars) for t in texts], dtype=np.float32).reshape(len(texts), len(SHAPE))


@dataclass(frozen=True)
class Features:
    """One message per row: `dense` embeddings (may have 0 columns) and `sparse` n-grams."""

    dense: Floats
    sparse: Sparse

    @property
    def rows(self) -> int:
        return self.sparse.rows

    def take(self, index: Ints) -> Features:
        return Features(self.dense[index], self.sparse.take(index))
