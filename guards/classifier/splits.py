"""Dev/test splits of the desk's own case files, and the text normalisation that checks them.

Every case carries `split: dev|test`. Rules, exemplars, training data and thresholds may use
`dev` only; `test` is what the desk's figures are reported on. The split was assigned once by
`assign`, deterministically (within each group of a file, cases ordered by the SHA-256 of their
normalised text alternate dev/test), and is stored in the files so that adding a case later
never moves an old one.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Literal

Split = Literal["dev", "test"]
#: e5 cosine at which two texts say the same thing: a written text this close to a `test` text is a
#: paraphrase of it, and a `test` text this close to a training text is not held out. e5 is narrow:
#: unrelated short texts score about 0.82, "where is my order" in English and German 0.92; one word
#: swapped or a close translation scores above 0.95.
PARAPHRASE = 0.955
SPLITS: tuple[Split, ...] = ("dev", "test")


def normalise(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: two texts equal here are the same text."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def text_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def assign(texts: Sequence[str], *, first: Split = "dev") -> list[Split]:
    """Alternate dev/test over `texts` ordered by hash: a balanced, content-determined split."""
    order = sorted(range(len(texts)), key=lambda i: text_hash(texts[i]))
    out: list[Split] = ["dev"] * len(texts)
    other: Split = "test" if first == "dev" else "dev"
    for rank, index in enumerate(order):
        out[index] = first if rank % 2 == 0 else other
    return out


def leaked(test_texts: Iterable[str], seen: Iterable[str]) -> list[str]:
    """The `test` texts that also occur (normalised) in `seen`."""
    known = {normalise(text) for text in seen}
    return sorted({text for text in test_texts if normalise(text) in known})
