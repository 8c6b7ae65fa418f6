"""The Security Judge's A2A app: the message text in, a `JudgeReply` out (its verdict, and the
message's e5 vector when the offline model read it, for the desk to reuse)."""

from __future__ import annotations

from typing import Protocol

from starlette.applications import Starlette

from guards.classifier.offline_llm import OfflineJudgeLlm
from guards.judge import JudgeEngine, RuleSet
from guards.judge.model_tier import LlmJudgeTier, build_judge_model
from guards.schema import JudgeReply, Reading
from pipeline.core.settings import JudgeSettings
from services.common import GuardSpec, build_guard_app


class Readings(Protocol):
    def reading(self, text: str) -> Reading | None: ...


SPEC = GuardSpec(
    name="judge",
    title="Security Judge",
    description="Screens a customer message for attacks before it reaches the support agent.",
    skill_id="screen-message",
    skill_description=(
        "Blocks prompt injection, jailbreaks, prompt extraction, SQL/shell/template injection, "
        'requests for other customers\' data and tool probing; answers {"verdict": "allow"|"block", '
        '"reason", "rules", "tier": "pattern"|"fast_path"|"model", "score", "reading"}; the reading '
        "is the message's e5 vector when the model read it."
    ),
    tags=("security", "prompt-injection", "guard"),
)


def build_engine(settings: JudgeSettings) -> tuple[JudgeEngine, Readings | None]:
    """Rules from data, the model tier from the configured model (offline by default); once. With
    the engine, where its model's vectors can be read back: the offline classifier's e5, else None."""
    model = build_judge_model(settings)
    readings = model.readings if isinstance(model, OfflineJudgeLlm) else None
    return JudgeEngine(RuleSet.load(), LlmJudgeTier(model)), readings


def build_app(settings: JudgeSettings, engine: JudgeEngine, readings: Readings | None = None) -> Starlette:
    async def decide(text: str) -> JudgeReply:
        verdict = await engine.decide(text)
        # Sent with a block too: the desk's Guardrail, if it reaches the message only after this
        # reply (still inside ADK's runner when it came), finds the vector instead of embedding
        # the message of a turn that is over.
        reading = readings.reading(text) if readings is not None and verdict.tier == "model" else None
        return JudgeReply(**verdict.model_dump(), reading=reading)

    # No text longer than the sanitizer lets through: nobody makes the Judge work harder than the desk.
    return build_guard_app(SPEC, decide, url=settings.judge_url, token=settings.guard_secret,
                           max_body_bytes=settings.guard_max_body_bytes,
                           max_text_chars=settings.max_message_chars, max_text_bytes=settings.max_message_bytes)
