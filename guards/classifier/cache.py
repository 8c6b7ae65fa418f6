"""Embeddings of training texts kept on disk between runs (`.supportdesk/`, never committed).

Keyed by the SHA-256 of the exact text the embedder reads (its `head`), the embedder design and the
engine that computes it, so a changed text, cut, design or engine is simply a miss. Training embeds
thousands of texts once; every later run reads them back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from guards.classifier.embedders import EMBED_CHARS, TextVectors
from guards.classifier.features import Floats

DEFAULT_DIR = Path(".supportdesk") / "classifier-cache"
BATCH = 64
#: Where training reports progress (`print` on the command line).
Log = Callable[[str], None]
#: Texts between two progress lines: embedding a few thousand new texts takes minutes.
PROGRESS_EVERY = 1024


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, embedder: TextVectors, directory: Path | None = DEFAULT_DIR,
                 log: Log = lambda _: None) -> None:
        self._embedder = embedder
        self._log = log
        self._path = directory / f"{embedder.name}-{embedder.engine}-{EMBED_CHARS}.npz" if directory else None
        self._rows: dict[str, Floats] = {}
        if self._path and self._path.is_file():
            with np.load(self._path) as data:
                self._rows = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def embed(self, texts: Sequence[str]) -> Floats:
        heads = [self._embedder.head(t) for t in texts]
        missing = list(dict.fromkeys(h for h in heads if _key(h) not in self._rows))
        for start in range(0, len(missing), BATCH):
            if start % PROGRESS_EVERY == 0:
                self._log(f"  embedding with {self._embedder.name}: {start}/{len(missing)} new texts")
            chunk = missing[start:start + BATCH]
            for head, vector in zip(chunk, self._embedder.embed(chunk), strict=True):
                self._rows[_key(head)] = vector
        if missing and self._path:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            keys = np.array(list(self._rows))
            np.savez(self._path, keys=keys, vectors=np.stack([self._rows[k] for k in keys.tolist()]))
        if not texts:
            return np.zeros((0, self._embedder.dims), dtype=np.float32)
        return np.stack([self._rows[_key(h)] for h in heads]).astype(np.float32)
