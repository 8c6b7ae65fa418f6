"""Intent recognition of the offline support model: a softmax regression over multilingual-e5-small
vectors (the process's one e5, shared with the Guardrail's classifier), fitted on the exemplars.

Data: `data/intents.yaml` (see its header for the scoring rule). Keywords catch the short,
explicit phrasings embeddings score poorly ("cancel 10042"); embeddings catch paraphrases no
keyword list anticipates ("I no longer need the things I bought").
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.models.exemplars import Exemplar, ExemplarBank, TextEmbedder, load_data_file

Intent = Literal[
    "order_status", "where_is_parcel", "list_orders", "delivery_instruction", "return_request",
    "cancel_request", "exchange_request", "address_change", "greeting", "thanks", "unsupported",
]
FALLBACK: Intent = "unsupported"


#: Softmax regression over the exemplars' e5 vectors: full-batch gradient descent from zero weights
#: (deterministic). e5's cosines sit in a narrow band, hence the ×SHARPNESS on the logits.
SHARPNESS = 10.0
EPOCHS = 1000
LEARNING_RATE = 0.5
L2 = 1e-4


class IntentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    keywords: tuple[str, ...] = ()
    #: Its keywords count only when no other intent's keyword matches: a greeting that opens a
    #: request ("Hi, how are you today? Where is my latest order?") is politeness, not the request.
    yields: bool = False
    exemplars: tuple[Exemplar, ...]

    @field_validator("keywords")
    @classmethod
    def _compiles(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            re.compile(pattern)
        return patterns


class IntentData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_probability: float = Field(ge=0, lt=1, description="Below it the message is `unsupported`")
    min_similarity: float = Field(ge=0, lt=1, description="Nor is it the intent's when its nearest exemplar "
                                                          "is less similar than this (a question of another kind)")
    keyword_logit: float = Field(ge=0, description="Added to an intent's logit when its keyword matches")
    intents: Mapping[Intent, IntentSpec]


class IntentMatch(BaseModel):
    """The recognised intent, its probability and the evidence (nearest exemplar, keyword rule)."""

    model_config = ConfigDict(frozen=True)

    intent: Intent
    score: float
    #: e.g. "exemplar:status-01+keyword:order_status#0"; "below-threshold:<nearest exemplar>".
    evidence: str


Matrix = npt.NDArray[np.float64]


def fit_softmax(vectors: Matrix, labels: npt.NDArray[np.int64], classes: int) -> tuple[Matrix, Matrix]:
    """Weights and biases of a softmax regression (cross-entropy + L2), deterministic."""
    targets = np.eye(classes)[labels]
    weights, biases = np.zeros((vectors.shape[1], classes)), np.zeros(classes)
    for _ in range(EPOCHS):
        grad = (_softmax(SHARPNESS * vectors @ weights + biases) - targets) / len(vectors)
        weights -= LEARNING_RATE * (SHARPNESS * vectors.T @ grad + L2 * weights)
        biases -= LEARNING_RATE * grad.sum(axis=0)
    return weights, biases


def _softmax(logits: Matrix) -> Matrix:
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


class IntentRecognizer:
    """Built once per process with the shared embedder (the model is fitted on the exemplars then,
    ~0.7 s); `recognise` is pure and deterministic."""

    def __init__(self, embedder: TextEmbedder, data: IntentData | None = None) -> None:
        self._data = data or IntentData.model_validate(load_data_file("intents.yaml"))
        self._embedder = embedder
        self._names: tuple[Intent, ...] = tuple(self._data.intents)
        self._bank = ExemplarBank({name: spec.exemplars for name, spec in self._data.intents.items()}, embedder)
        self._keywords = {
            name: [(f"{name}#{i}", re.compile(p, re.IGNORECASE)) for i, p in enumerate(spec.keywords)]
            for name, spec in self._data.intents.items()
        }
        self._yielding = frozenset(name for name, spec in self._data.intents.items() if spec.yields)
        self._weights, self._biases = fit_softmax(self._bank.vectors.astype(np.float64), self._bank.label_indices,
                                                  len(self._names))

    @property
    def data(self) -> IntentData:
        """The intents, exemplars and calibration numbers this recogniser was built from."""
        return self._data

    def recalibrated(self, **numbers: float) -> IntentRecognizer:
        """The same fitted model with other calibration numbers of `IntentData` (for a grid: the
        fit does not depend on them, so it is not repeated)."""
        twin = copy.copy(self)
        twin._data = self._data.model_copy(update=numbers)
        return twin

    @property
    def embedder(self) -> TextEmbedder:
        return self._embedder

    def prepare(self, text: str) -> None:
        """Embed `text` now, so that `recognise(text)` finds its vector (a blocking call: ~20 ms)."""
        self._embedder.embed_one(text)

    def keyword_hit(self, intent: Intent, text: str) -> str | None:
        """The id (`<intent>#<n>`) of the first keyword rule of `intent` matching `text`."""
        return next((rule for rule, rx in self._keywords.get(intent, []) if rx.search(text)), None)

    def recognise(self, text: str) -> IntentMatch:
        """The most probable intent; `unsupported` when it is not probable enough, or when even its
        nearest exemplar is unlike the message (a softmax always picks some intent)."""
        # The message as it came, so the vector `prepare` or the Guardrail computed is found.
        vector = self._embedder.embed_one(text)
        hits = {name: self.keyword_hit(name, text) for name in self._names}
        if any(hit is not None and name not in self._yielding for name, hit in hits.items()):
            hits = {name: None if name in self._yielding else hit for name, hit in hits.items()}
        keyed = np.array([hits[name] is not None for name in self._names], dtype=np.float64)
        logits = SHARPNESS * vector.astype(np.float64) @ self._weights + self._biases + self._data.keyword_logit * keyed
        probabilities = _softmax(logits)
        best = int(probabilities.argmax())
        name, probability = self._names[best], float(probabilities[best])
        nearest = self._bank.best(vector)[name]
        if probability < self._data.min_probability or nearest.score < self._data.min_similarity:
            return IntentMatch(intent=FALLBACK, score=round(probability, 4),
                               evidence=f"below-threshold:{nearest.exemplar_id}")
        hit = hits[name]
        return IntentMatch(intent=name, score=round(probability, 4),
                           evidence=f"exemplar:{nearest.exemplar_id}" + (f"+keyword:{hit}" if hit else ""))
