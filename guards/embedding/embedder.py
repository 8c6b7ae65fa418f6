"""The desk's sentence embedder: all-MiniLM-L6-v2 (int8 ONNX) on ONNX Runtime, no PyTorch.

Vectors follow the sentence-transformers recipe of the reference model: WordPiece tokens
(truncated to the model's limit), mean of the last hidden state over real tokens (attention
mask), L2-normalised. Cosine similarity of two vectors is therefore their dot product.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Tokenizer

from guards.embedding.pins import ModelPins
from pipeline.core.errors import ConfigError

Vectors = npt.NDArray[np.float32]


DEFAULT_CACHE_SIZE = 1024


class Embedder:
    """Built once per process (`Embedder.load()`), then shared; `embed` is thread-safe.

    Recent texts' vectors are kept (`cache_size` of them, ~1.5 KB each): one customer turn embeds
    the same message several times (guardrail, memory recall, memory save).
    """

    def __init__(self, session: ort.InferenceSession, tokenizer: Tokenizer, dims: int, *,
                 cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._input_names = {i.name for i in session.get_inputs()}
        self.dims = dims
        self._cache: OrderedDict[str, Vectors] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    @classmethod
    def load(cls, pins: ModelPins | None = None, *, cache_size: int = DEFAULT_CACHE_SIZE) -> Embedder:
        """Verify the pinned files and open them (~0.3 s: hashing and building the ORT session)."""
        pins = pins or ModelPins.default()
        model_path = pins.model.verified_path()
        tokenizer_path = pins.tokenizer.verified_path()

        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # The shipped tokenizer.json pads every input to 128 tokens; padding to the longest
        # input of the batch gives the same vectors (padding is masked out) for less work.
        tokenizer.enable_truncation(max_length=pins.max_tokens)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

        options = ort.SessionOptions()
        # The machine's few cores are shared with the other desk services: one thread each.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # ORT raises its own untyped errors for unreadable models
            raise ConfigError(f"cannot open embedder model {model_path}: {exc}") from exc
        output = session.get_outputs()[0]
        if output.shape[-1] != pins.dims:
            raise ConfigError(f"embedder model gives {output.shape[-1]} dims, pinned {pins.dims}")
        return cls(session, tokenizer, pins.dims, cache_size=cache_size)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised float32 row of `dims` values per text, in order (a new array)."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_one() for a single text")
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        with self._lock:
            known = {text: self._cache[text] for text in texts if text in self._cache}
            for text in known:
                self._cache.move_to_end(text)
        missing = list(dict.fromkeys(text for text in texts if text not in known))
        if missing:
            fresh = dict(zip(missing, self._compute(missing), strict=True))
            known |= fresh
            with self._lock:
                self._cache.update(fresh)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return np.stack([known[text] for text in texts])

    def _compute(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask,
                 "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64)}
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._input_names})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        vectors.flags.writeable = False  # rows are shared through the cache
        return vectors

    def embed_one(self, text: str) -> Vectors:
        """The vector of one text, shape (dims,)."""
        return self.embed([text])[0]
