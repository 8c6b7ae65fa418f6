"""Labelled example sentences, embedded once, and nearest-neighbour lookup over them.

The offline intent recogniser fits its model on these vectors and names the nearest exemplar
of the intent it picked as its evidence (data in `pipeline/models/data/intents.yaml`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
import yaml
from pydantic import BaseModel, ConfigDict, Field

from pipeline.core.errors import ConfigError

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class TextEmbedder(Protocol):
    """What the offline models need from `guards.embedding.Embedder` (L2-normalised rows)."""

    def embed(self, texts: Sequence[str]) -> Vectors: ...

    def embed_one(self, text: str) -> Vectors: ...


class Exemplar(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    text: str = Field(min_length=1)


class Match(BaseModel):
    """The nearest exemplar of one label: its cosine similarity and id."""

    model_config = ConfigDict(frozen=True)

    label: str
    score: float
    exemplar_id: str


class ExemplarBank:
    """Exemplars of several labels as one matrix; `best(vector)` gives each label's nearest."""

    def __init__(self, groups: Mapping[str, Sequence[Exemplar]], embedder: TextEmbedder) -> None:
        ids: list[str] = []
        labels: list[str] = []
        texts: list[str] = []
        for label, exemplars in groups.items():
            if not exemplars:
                raise ConfigError(f"exemplar label {label!r} has no exemplars")
            for ex in exemplars:
                ids.append(ex.id)
                labels.append(label)
                texts.append(ex.text)
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ConfigError(f"duplicate exemplar ids: {duplicates}")
        self._ids = ids
        self._labels = np.array(labels)
        self._matrix = embedder.embed(texts)
        self._matrix.flags.writeable = False  # shared with readers of `vectors`
        self.labels = tuple(groups)

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def vectors(self) -> Vectors:
        """Every exemplar's vector, a row each, in label order (read-only)."""
        return self._matrix

    @property
    def label_indices(self) -> npt.NDArray[np.int64]:
        """For each row of `vectors`, the index of its label in `labels`."""
        index = {label: i for i, label in enumerate(self.labels)}
        return np.array([index[label] for label in self._labels], dtype=np.int64)

    def best(self, vector: Vectors, k: int = 1) -> dict[str, Match]:
        """Nearest exemplar of every label (cosine = dot product of normalised vectors).

        With `k` > 1 a label scores the mean of its k nearest exemplars, which a single
        look-alike sentence sways less than the maximum.
        """
        sims = self._matrix @ vector
        out: dict[str, Match] = {}
        for label in self.labels:
            idx = np.flatnonzero(self._labels == label)
            order = idx[np.argsort(sims[idx])[::-1]]
            top = int(order[0])
            score = float(sims[order[:k]].mean())
            out[label] = Match(label=label, score=score, exemplar_id=self._ids[top])
        return out


def load_data_file(name: str) -> Any:
    """Parse one YAML file shipped in `pipeline/models/data/`."""
    try:
        text = resources.files("pipeline.models").joinpath("data").joinpath(name).read_text(encoding="utf-8")
        return yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read model data file {name}: {exc}") from exc
