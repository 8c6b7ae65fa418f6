"""Offline Guardrail and Judge models: trained classifiers answered as a JSON verdict.

Both read the customer's message from the last user text part (as the Guardrail agent and
`guards/judge/model_tier.py` send it) and answer one JSON object with the fields of
`guards.schema.Verdict` minus `tier`: verdict, reason (≤ 500 chars), rules (`["model:<id>"]`)
and score (P(block)). A hosted model answers the same schema. The models are logistic
regressions over multilingual-e5-small embeddings and character n-grams, built by
`supportdesk train judge|guardrail` (`guards/classifier/`); their files are pinned by SHA-256
and their model cards sit beside them. The Judge reads a message longer than its classifier does
with its long reader (`long_reader.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import ClassVar, Literal, Self

from google.adk.models import LlmCapabilities
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from typing_extensions import override

from guards.classifier.artefact import Classifier
from guards.classifier.embedders import E5Embedder
from guards.classifier.long_reader import LongReader
from guards.guardrail.subject import SubjectChanges
from guards.llm.offline_answer import PromptMeter, latest_user_text, model_response

JUDGE_MODEL_DIR = Path(__file__).resolve().parents[1] / "judge" / "model"
GUARDRAIL_MODEL_DIR = Path(__file__).resolve().parents[1] / "guardrail" / "model"


class ModelVerdict(BaseModel):
    """What the offline guard models answer (and what a hosted model is asked to answer)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Literal["allow", "block"]
    reason: str = Field(max_length=500)
    rules: list[str]
    score: float


class _ClassifierLlm(BaseLlm):
    """Block iff the classifier's P(block) reaches the threshold (the model card's, unless set)."""

    classifier: Classifier
    threshold: float
    directory: ClassVar[Path]
    guard: ClassVar[str]
    reasons: ClassVar[tuple[str, str]]  # (allow, block)
    _meter: PromptMeter = PrivateAttr(default_factory=PromptMeter)

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @classmethod
    def build(cls, threshold: float | None = None, directory: Path | None = None, **fields: object) -> Self:
        """The committed classifier, or a candidate's from `directory` (it loads its own pinned
        embedder, shared per process); `fields` are the model's own (the Guardrail's `subject_changes`)."""
        classifier = Classifier.load(directory or cls.directory, cls.guard)
        return cls.model_validate({"classifier": classifier,
                                   "threshold": classifier.meta.threshold if threshold is None else threshold,
                                   **fields})

    @property
    @override
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(output_schema_and_tools=False)

    @property
    def readings(self) -> E5Embedder | None:
        """Where the vectors this model computed can be read back (`E5Embedder.reading`), if e5."""
        embedder = self.classifier.embedder
        return embedder if isinstance(embedder, E5Embedder) else None

    def scored(self, message: str) -> tuple[float, float, str]:
        """P(block) of the message, the threshold it must reach to be blocked, and the model that
        read it: what each guard overrides, so `decide` is the one place a verdict is made."""
        return self.classifier.score(message), self.threshold, self.classifier.model_id

    def decide(self, message: str) -> ModelVerdict:
        score, threshold, model_id = self.scored(message)
        block = score >= threshold
        return ModelVerdict(verdict="block" if block else "allow", reason=self.reasons[block],
                            rules=[f"model:{model_id}"], score=round(score, 4))

    @override
    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        message = latest_user_text(llm_request)
        if self.readings is not None:  # the desk's Guardrail: the Judge's reply may bring the vector
            await self.readings.arrival(message)
        # In a worker thread: the embedding is ~20 ms of C code that releases the GIL, so the event
        # loop keeps serving.
        verdict = await asyncio.to_thread(self.decide, message)
        yield model_response(llm_request, [types.Part(text=verdict.model_dump_json())],
                             {"role": self.model, **verdict.model_dump()}, self._meter)


class OfflineGuardrailLlm(_ClassifierLlm):
    model: str = "offline-guardrail"
    directory = GUARDRAIL_MODEL_DIR
    guard = "guardrail"
    reasons = ("The message is about the shop's orders and support.", "The message is off-topic for this shop.")
    #: From the written scope (`scope().subject_changes`), passed in by whoever builds the model.
    subject_changes: SubjectChanges

    @override
    def scored(self, message: str) -> tuple[float, float, str]:
        """The whole message, or what follows an announced change of subject read alone, whichever
        is further off topic (`guards/guardrail/subject.py`); the latter costs a second embedding."""
        whole = self.classifier.score(message)
        after = self.subject_changes.after(message)
        score = whole if after is None else max(whole, self.classifier.score(after))
        return score, self.threshold, self.classifier.model_id


class OfflineJudgeLlm(_ClassifierLlm):
    """A message longer than the classifier reads at once goes to the long reader instead, against
    the long reader's own threshold (`threshold` is the classifier's)."""

    model: str = "offline-judge"
    directory = JUDGE_MODEL_DIR
    guard = "judge"
    reasons = ("No attack found by the security model.", "The security model judged the message an attack.")
    long_reader: LongReader

    @classmethod
    @override
    def build(cls, threshold: float | None = None, directory: Path | None = None, **fields: object) -> Self:
        folder = directory or cls.directory  # the reader's files sit beside the classifier's
        return super().build(threshold, folder, long_reader=LongReader.load(folder), **fields)

    @override
    def scored(self, message: str) -> tuple[float, float, str]:
        if self.long_reader.reads_at_once(message):
            return super().scored(message)
        reader = self.long_reader
        return reader.score(message), reader.meta.threshold, reader.model_id
