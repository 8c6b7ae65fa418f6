"""The Security Judge's A2A app: the message text in, a `Verdict` out."""

from __future__ import annotations

from starlette.applications import Starlette

from guards.judge import JudgeEngine, RuleSet
from guards.judge.model_tier import LlmJudgeTier, build_judge_model
from pipeline.core.settings import JudgeSettings
from services.common import GuardSpec, build_guard_app

SPEC = GuardSpec(
    name="judge",
    title="Security Judge",
    description="Screens a customer message for attacks before it reaches the support agent.",
    skill_id="screen-message",
    skill_description=(
        "Blocks prompt injection, jailbreaks, prompt extraction, SQL/shell/template injection, "
        'requests for other customers\' data and tool probing; answers {"verdict": "allow"|"block", '
        '"reason", "rules", "tier": "pattern"|"fast_path"|"model"}.'
    ),
    tags=("security", "prompt-injection", "guard"),
)


def build_engine(settings: JudgeSettings) -> JudgeEngine:
    """Rules from data, the model tier from the configured model (offline by default); once."""
    return JudgeEngine(RuleSet.load(), LlmJudgeTier(build_judge_model(settings)))


def build_app(settings: JudgeSettings, engine: JudgeEngine) -> Starlette:
    # No text longer than the sanitizer lets through: nobody makes the Judge work harder than the desk.
    return build_guard_app(SPEC, engine.decide, url=settings.judge_url, token=settings.guard_secret,
                           max_body_bytes=settings.guard_max_body_bytes,
                           max_text_chars=settings.max_message_chars, max_text_bytes=settings.max_message_bytes)
