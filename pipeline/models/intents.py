"""Intent recognition of the offline support model: keyword rules plus exemplar similarity
on multilingual-e5-small (the process's one e5, shared with the Guardrail's classifier).

Data: `data/intents.yaml` (see its header for the scoring rule). Keywords catch the short,
explicit phrasings embeddings score poorly ("cancel 10042"); embeddings catch paraphrases no
keyword list anticipates ("I no longer need the things I bought").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.models.exemplars import Exemplar, ExemplarBank, TextEmbedder, load_data_file

Intent = Literal[
    "order_status", "where_is_parcel", "list_orders", "delivery_instruction", "return_request",
    "cancel_request", "exchange_request", "address_change", "greeting", "thanks", "unsupported",
]
FALLBACK: Intent = "unsupported"


class IntentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    priority: int = Field(ge=0)
    keywords: tuple[str, ...] = ()
    exemplars: tuple[Exemplar, ...]

    @field_validator("keywords")
    @classmethod
    def _compiles(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            re.compile(pattern)
        return patterns


class IntentData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: float
    keyword_bonus: float = Field(ge=0)
    margin: float = Field(gt=0, description="Only intents this close to the best score compete")
    intents: Mapping[Intent, IntentSpec]


class IntentMatch(BaseModel):
    """The recognised intent, its score and the evidence (exemplar id and keyword rule, if any)."""

    model_config = ConfigDict(frozen=True)

    intent: Intent
    score: float
    #: e.g. "exemplar:status-01+keyword:order_status#0"; "below-threshold:<nearest exemplar>".
    evidence: str


class IntentRecognizer:
    """Built once per process with the shared embedder; `recognise` is pure and deterministic."""

    def __init__(self, embedder: TextEmbedder, data: IntentData | None = None) -> None:
        self._data = data or IntentData.model_validate(load_data_file("intents.yaml"))
        self._embedder = embedder
        self._bank = ExemplarBank({name: spec.exemplars for name, spec in self._data.intents.items()}, embedder)
        self._keywords = {
            name: [(f"{name}#{i}", re.compile(p, re.IGNORECASE)) for i, p in enumerate(spec.keywords)]
            for name, spec in self._data.intents.items()
        }

    def prepare(self, text: str) -> None:
        """Embed `text` now, so that `recognise(text)` finds its vector (a blocking call: ~20 ms)."""
        self._embedder.embed_one(text)

    def keyword_hit(self, intent: Intent, text: str) -> str | None:
        """The id (`<intent>#<n>`) of the first keyword rule of `intent` matching `text`."""
        return next((rule for rule, rx in self._keywords.get(intent, []) if rx.search(text)), None)

    def recognise(self, text: str) -> IntentMatch:
        """Among intents over the threshold and within the margin of the best: keyword-confirmed
        first, then priority, then score."""
        # The message as it came, so the vector `prepare` or the Guardrail computed is found.
        # (MiniLM needed order numbers masked; e5 scores the desk's dev texts the same either way.)
        best = self._bank.best(self._embedder.embed_one(text))
        scores = {name: best[name].score + (self._data.keyword_bonus if self.keyword_hit(name, text) else 0.0)
                  for name in self._data.intents}
        floor = max(self._data.threshold, max(scores.values()) - self._data.margin)
        candidates: list[tuple[bool, int, float, IntentMatch]] = []
        for name, spec in self._data.intents.items():
            hit = self.keyword_hit(name, text)
            score = scores[name]
            if score >= floor:
                evidence = f"exemplar:{best[name].exemplar_id}" + (f"+keyword:{hit}" if hit else "")
                match = IntentMatch(intent=name, score=round(score, 4), evidence=evidence)
                candidates.append((hit is not None, spec.priority, score, match))
        if not candidates:
            nearest = max(best.values(), key=lambda m: m.score)
            return IntentMatch(intent=FALLBACK, score=round(nearest.score, 4),
                               evidence=f"below-threshold:{nearest.exemplar_id}")
        return max(candidates, key=lambda c: c[:3])[3]
