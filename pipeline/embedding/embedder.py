"""The desk's sentence embedder: all-MiniLM-L6-v2 (int8 ONNX) on ONNX Runtime, no PyTorch.

Vectors follow the sentence-transformers recipe of the reference model: WordPiece tokens
(truncated to the model's limit), mean of the last hidden state over real tokens (attention
mask), L2-normalised. Cosine similarity of two vectors is therefore their dot product.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Tokenizer

from pipeline.embedding.pins import ModelPins
from pipeline.errors import ConfigError

Vectors = npt.NDArray[np.float32]


class Embedder:
    """Built once per process (`Embedder.load()`), then shared; `embed` is thread-safe."""

    def __init__(self, session: ort.InferenceSession, tokenizer: Tokenizer, dims: int) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._input_names = {i.name for i in session.get_inputs()}
        self.dims = dims

    @classmethod
    def load(cls, pins: ModelPins | None = None) -> Embedder:
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
        return cls(session, tokenizer, pins.dims)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised float32 row of `dims` values per text, in order."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_one() for a single text")
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask,
                 "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64)}
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._input_names})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed_one(self, text: str) -> Vectors:
        """The vector of one text, shape (dims,)."""
        return self.embed([text])[0]
