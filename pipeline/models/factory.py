"""`build_llm`: the one place a model role becomes a `BaseLlm`, chosen by `settings.model_name`.

- `offline`: the deterministic local model of the role, all of them on the process's one e5 embedder;
- a Gemini model name: ADK `Gemini`;
- `litellm/<provider>/<model>` (+ `LITELLM_API_BASE`): ADK `LiteLlm`.
Hosted models are built by `guards/llm/providers.py` (wrapped: timeout, retry, output cap, refusals).
Build each role once per process and share it; a model instance serves concurrent turns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from google.adk.models.base_llm import BaseLlm

from guards.classifier.embedders import shared_e5
from guards.classifier.offline_llm import OfflineGuardrailLlm, OfflineJudgeLlm
from guards.guardrail.scope import scope
from guards.llm.providers import OFFLINE, build_hosted
from pipeline.core.errors import ConfigError
from pipeline.core.settings.guard_sections import ModelSection
from pipeline.models.offline_support import OfflineSupportLlm

Role = Literal["agent", "guardrail", "judge"]


def build_offline(settings: ModelSection, role: Role, directory: Path | None = None) -> BaseLlm:
    """The offline model of `role`. The agent's intents and the guard classifiers read the same
    process-wide multilingual e5 embedder, so a message the Guardrail embedded is not embedded again.
    `directory`: a guard's candidate model files (`supportdesk train --out`) instead of the committed ones."""
    if role == "agent":
        if directory is not None:
            raise ConfigError(f"the offline agent has no model files to replace (given {directory})")
        return OfflineSupportLlm.build(shared_e5())
    if role == "guardrail":
        return OfflineGuardrailLlm.build(settings.guardrail_threshold, directory,
                                         subject_changes=scope().subject_changes)
    if role == "judge":
        return OfflineJudgeLlm.build(settings.judge_model_threshold, directory)
    raise ConfigError(f"unknown model role {role!r}")


def build_llm(settings: ModelSection, role: Role) -> BaseLlm:
    if settings.model_name == OFFLINE:
        return build_offline(settings, role)
    return build_hosted(settings)


def build_llms(settings: ModelSection, roles: tuple[Role, ...]) -> dict[Role, BaseLlm]:
    """A model for each of `roles`: the offline model of each role, or one hosted model shared by
    all of them (one client and one connection pool per process, not one per role)."""
    if settings.model_name == OFFLINE:
        return {role: build_llm(settings, role) for role in roles}
    return dict.fromkeys(roles, build_hosted(settings))
