"""A trained guard model on disk, pinned by SHA-256, and `Classifier`, which scores messages.

Files, in one folder: `<name>.json` (what the model is: embedder design, n-gram parameters,
threshold, the data it saw), `<name>.weights.npy` (float32: embedding columns, n-gram buckets,
bias) and `pins.json` (`{file: sha256}`). `Classifier.load` refuses files whose hash differs.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from guards.classifier import logreg
from guards.classifier.embedders import Design, TextVectors, shared_embedder
from guards.classifier.features import SHAPE, Features, Floats, NgramSpec, ngrams, shape_columns
from guards.embedding.pins import verified_bytes
from pipeline.core.errors import ConfigError

Meta = TypeVar("Meta", bound=BaseModel)


class ModelMeta(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    guard: str
    design: Design | None = Field(description="Embedder of the dense columns; None = n-grams only")
    dims: int = Field(ge=0)
    buckets: int = Field(gt=0)
    min_n: int = Field(gt=0)
    max_n: int = Field(gt=0)
    max_chars: int = Field(gt=0)
    dense_scale: float
    shape: bool = Field(default=False, description="The `features.SHAPE` columns follow the embedding")
    hidden: int = Field(default=0, ge=0, description="Hidden units over the embedding; 0 = logistic regression")
    threshold: float = Field(description="Block iff P(block) >= threshold (calibrated on dev data)")
    threshold_rule: str
    training_counts: dict[str, dict[str, int]] = Field(description="source -> label -> texts")

    @property
    def spec(self) -> NgramSpec:
        return NgramSpec(self.buckets, self.min_n, self.max_n, self.max_chars)

    @property
    def dense_width(self) -> int:
        return self.dims + (len(SHAPE) if self.shape else 0)


def featurize(texts: Sequence[str], dense: Floats, spec: NgramSpec, shape: bool) -> Features:
    if shape:
        dense = np.hstack([dense, shape_columns(texts, spec.max_chars)])
    return Features(dense, ngrams(texts, spec))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save(directory: Path, name: str, meta: BaseModel, weights: np.ndarray) -> dict[str, str]:
    """Write the model files and their pins; returns the pins."""
    directory.mkdir(parents=True, exist_ok=True)
    weights_path, meta_path = directory / f"{name}.weights.npy", directory / f"{name}.json"
    np.save(weights_path, weights.astype("<f4"), allow_pickle=False)
    meta_path.write_text(meta.model_dump_json(indent=1) + "\n", encoding="utf-8")
    pins_path = directory / "pins.json"
    pins = json.loads(pins_path.read_text("utf-8")) if pins_path.is_file() else {}
    pins.update({p.name: _sha256(p.read_bytes()) for p in (meta_path, weights_path)})
    pins_path.write_text(json.dumps(dict(sorted(pins.items())), indent=1) + "\n", encoding="utf-8")
    return pins


def load_pinned(directory: Path, name: str, meta_type: type[Meta]) -> tuple[Meta, np.ndarray]:
    """A model's meta and weights, each file checked against its pin (`ConfigError` if not)."""
    try:
        pins = json.loads((directory / "pins.json").read_text("utf-8"))
        data = {}
        for file in (f"{name}.json", f"{name}.weights.npy"):
            if file not in pins:
                raise ConfigError(f"guard model file {file} is not pinned in {directory}/pins.json")
            data[file] = verified_bytes(directory / file, pins[file])
        meta = meta_type.model_validate_json(data[f"{name}.json"])
        weights = np.load(io.BytesIO(data[f"{name}.weights.npy"]), allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"guard model {name} in {directory} cannot be read: {exc}") from exc
    return meta, weights


class Classifier:
    """P(block) of messages; built once per process and shared (the embedder is process-wide)."""

    def __init__(self, meta: ModelMeta, weights: np.ndarray, embedder: TextVectors | None) -> None:
        self.meta = meta
        self._weights = weights.astype(np.float64)
        self._embedder = embedder
        self.model_id = f"{meta.guard}-{meta.design or 'ngram'}"

    @classmethod
    def load(cls, directory: Path, name: str) -> Classifier:
        meta, weights = load_pinned(directory, name, ModelMeta)
        if weights.shape != (logreg.size(meta.dense_width, meta.buckets, meta.hidden),):
            raise ConfigError(f"guard model {name}: weights shape {weights.shape} does not fit its meta")
        embedder = shared_embedder(meta.design) if meta.design else None
        return cls(meta, weights, embedder)

    @property
    def embedder(self) -> TextVectors | None:
        return self._embedder

    def scores(self, texts: Sequence[str]) -> Floats:
        dense = (self._embedder.embed(texts) if self._embedder
                 else np.zeros((len(texts), 0), dtype=np.float32))
        features = featurize(texts, dense, self.meta.spec, self.meta.shape)
        return logreg.probabilities(self._weights, features, self.meta.dense_scale, self.meta.hidden)

    def score(self, text: str) -> float:
        return float(self.scores([text])[0])
