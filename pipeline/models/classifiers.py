"""Offline Guardrail and Judge models: exemplar similarity answered as a JSON verdict.

Both read the customer's message from the last user text part (as the Guardrail agent and
`guards/judge/model_tier.py` send it) and answer one JSON object with the fields of
`guards.schema.Verdict` minus `tier`: verdict, reason (≤ 500 chars), rules
(`["exemplar:<id>"]`, the evidence) and score. A hosted model answers the same schema.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import AsyncGenerator
from typing import Literal

from google.adk.models import LlmCapabilities
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import override

from pipeline.models.exemplars import Exemplar, ExemplarBank, Match, TextEmbedder, load_data_file
from pipeline.models.turn import latest_user_text, model_response


class ModelVerdict(BaseModel):
    """What the offline guard models answer (and what a hosted model is asked to answer)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Literal["allow", "block"]
    reason: str = Field(max_length=500)
    rules: list[str]
    score: float


class _ExemplarVerdictLlm(BaseLlm):
    embedder: TextEmbedder
    bank: ExemplarBank
    threshold: float

    @property
    @override
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(output_schema_and_tools=False)

    @abstractmethod
    def decide(self, message: str) -> ModelVerdict: ...

    @override
    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        verdict = self.decide(latest_user_text(llm_request))
        yield model_response(llm_request, [types.Part(text=verdict.model_dump_json())],
                             {"role": self.model, **verdict.model_dump()})


GUARDRAIL_TOP_K = 3
#: Below this on-topic similarity nothing about the shop is even remotely near, and the margin
#: between two tiny similarities is noise: the message is off-topic whatever the margin.
GUARDRAIL_MIN_ON_TOPIC = 0.2


class OfflineGuardrailLlm(_ExemplarVerdictLlm):
    """On-topic iff (on-topic similarity − off-topic similarity) ≥ threshold (and the on-topic
    similarity reaches `GUARDRAIL_MIN_ON_TOPIC`).

    A side's similarity is the mean over its `GUARDRAIL_TOP_K` nearest exemplars; the score is the margin.
    0.0 (the nearer side wins) is the proposed default; see `report_quality.py` for the sweep.
    """

    model: str = "offline-guardrail"

    @classmethod
    def build(cls, embedder: TextEmbedder, threshold: float = 0.0) -> OfflineGuardrailLlm:
        data = load_data_file("guardrail_exemplars.yaml")
        groups = {side: [Exemplar.model_validate(e) for e in data[side]] for side in ("on_topic", "off_topic")}
        return cls(embedder=embedder, bank=ExemplarBank(groups, embedder), threshold=threshold)

    def nearest(self, message: str) -> tuple[Match, Match]:
        """On-topic and off-topic similarity (mean of each side's nearest exemplars)."""
        best = self.bank.best(self.embedder.embed_one(message), k=GUARDRAIL_TOP_K)
        return best["on_topic"], best["off_topic"]

    def decide(self, message: str) -> ModelVerdict:
        on, off = self.nearest(message)
        margin = on.score - off.score
        allow = guardrail_allows(on, off, self.threshold)
        winner = on if allow else off
        topic = "about the shop's orders and support" if allow else "off-topic for this shop"
        return ModelVerdict(
            verdict="allow" if allow else "block",
            reason=f"Message is {topic}: nearest example {winner.exemplar_id} "
                   f"(similarity {winner.score:.2f}, on-topic margin {margin:+.2f}).",
            rules=[f"exemplar:{winner.exemplar_id}"],
            score=round(margin, 4),
        )


def guardrail_allows(on: Match, off: Match, threshold: float) -> bool:
    return on.score - off.score >= threshold and on.score >= GUARDRAIL_MIN_ON_TOPIC


#: Long messages are judged part by part as well as whole, so an attack sentence buried in a
#: harmless paragraph (or past the embedder's token limit) still meets its exemplar.
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
_MAX_PARTS = 12


def message_parts(message: str) -> list[str]:
    sentences = [s for s in (p.strip() for p in _SENTENCE_END.split(message)) if s]
    if len(sentences) <= 1:
        return [message]
    size = -(-len(sentences) // _MAX_PARTS)
    groups = [" ".join(sentences[i:i + size]) for i in range(0, len(sentences), size)]
    return [message, *groups]


class OfflineJudgeLlm(_ExemplarVerdictLlm):
    """Block iff the nearest attack exemplar reaches the threshold and beats the nearest benign one.

    The score is the attack similarity (cosine), compared to `judge_model_threshold`.
    """

    model: str = "offline-judge"
    categories: tuple[str, ...]

    @classmethod
    def build(cls, embedder: TextEmbedder, threshold: float) -> OfflineJudgeLlm:
        data = load_data_file("attack_exemplars.yaml")
        groups = {cat: [Exemplar.model_validate(e) for e in items] for cat, items in data["attacks"].items()}
        groups["benign"] = [Exemplar.model_validate(e) for e in data["benign"]]
        return cls(embedder=embedder, bank=ExemplarBank(groups, embedder), threshold=threshold,
                   categories=tuple(data["attacks"]))

    def nearest(self, message: str) -> tuple[Match, Match]:
        """The nearest attack exemplar (any category) and benign exemplar of the message part
        that looks most like an attack: the highest attack similarity among parts nearer an
        attack than anything harmless, else the part with the smallest harmless lead.

        So a part blocks on its own: a harmless sentence elsewhere cannot outvote it.
        """
        pairs = []
        for vector in self.embedder.embed(message_parts(message)):
            best = self.bank.best(vector)
            pairs.append((max((best[c] for c in self.categories), key=lambda m: m.score), best["benign"]))
        leaning = [p for p in pairs if p[0].score > p[1].score]
        if leaning:
            return max(leaning, key=lambda p: p[0].score)
        return max(pairs, key=lambda p: p[0].score - p[1].score)

    def decide(self, message: str) -> ModelVerdict:
        attack, benign = self.nearest(message)
        block = judge_blocks(attack, benign, self.threshold)
        if block:
            reason = (f"Resembles a known {attack.label.replace('_', ' ')} attack "
                      f"{attack.exemplar_id} (similarity {attack.score:.2f}).")
            evidence = attack
        else:
            reason = (f"No known attack close enough: nearest attack {attack.exemplar_id} "
                      f"{attack.score:.2f}, nearest harmless example {benign.exemplar_id} {benign.score:.2f}.")
            evidence = benign if benign.score >= attack.score else attack
        return ModelVerdict(verdict="block" if block else "allow", reason=reason,
                            rules=[f"exemplar:{evidence.exemplar_id}"], score=round(attack.score, 4))


def judge_blocks(attack: Match, benign: Match, threshold: float) -> bool:
    return attack.score >= threshold and attack.score > benign.score
