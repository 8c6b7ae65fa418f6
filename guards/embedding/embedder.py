"""The desk's sentence embedder: all-MiniLM-L6-v2 (int8 ONNX) on ONNX Runtime, no PyTorch.

It runs the pinned model rebuilt with int8 weight products (`quantized.py`: about twice as fast here,
built once per machine into `model_dir`).

Vectors follow the sentence-transformers recipe of the reference model: WordPiece tokens
(truncated to the model's limit), mean of the last hidden state over the tokens, L2-normalised.
Cosine similarity of two vectors is therefore their dot product.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Encoding, Tokenizer

from guards.embedding.pins import ModelPins
from guards.embedding.quantized import int8_model
from pipeline.core.errors import ConfigError

Vectors = npt.NDArray[np.float32]


DEFAULT_CACHE_SIZE = 1024
#: Where the int8 build is kept unless told otherwise (the desk passes `memory_model_dir`).
DEFAULT_MODEL_DIR = Path(".supportdesk/models")


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
    def load(cls, pins: ModelPins | None = None, *, cache_size: int = DEFAULT_CACHE_SIZE,
             model_dir: Path = DEFAULT_MODEL_DIR) -> Embedder:
        """Verify the pinned files and open them (~0.3 s: hashing and building the ORT session; the
        first load on a machine also builds the int8 model into `model_dir`, ~4 s)."""
        pins = pins or ModelPins.default()
        model_path = int8_model(pins.model.verified_path(), pins.model.sha256, model_dir)
        tokenizer_path = pins.tokenizer.verified_path()

        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # The shipped tokenizer.json pads every input to 128 tokens. Texts are run one at a time
        # (`_compute`), unpadded: the int8 products scale each input by its own range, so a
        # batch's longest text, or its padding, would change the other texts' vectors.
        tokenizer.enable_truncation(max_length=pins.max_tokens)
        tokenizer.no_padding()

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
        vectors = np.stack([self._vector(encoding) for encoding in self._tokenizer.encode_batch(texts)])
        vectors.flags.writeable = False  # rows are shared through the cache
        return vectors

    def _vector(self, encoding: Encoding) -> Vectors:
        feeds = {"input_ids": encoding.ids, "attention_mask": encoding.attention_mask,
                 "token_type_ids": encoding.type_ids}
        hidden = self._session.run(None, {name: np.array([values], dtype=np.int64)
                                          for name, values in feeds.items() if name in self._input_names})[0]
        pooled = hidden[0].mean(axis=0)  # unpadded: every token is a real one
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def embed_one(self, text: str) -> Vectors:
        """The vector of one text, shape (dims,)."""
        return self.embed([text])[0]
