"""`build_llm`: the one place a model role becomes a `BaseLlm`, chosen by `settings.model_name`.

- `offline`: the deterministic local model of the role, sharing the injected embedder;
- a Gemini model name: ADK `Gemini`;
- `litellm/<provider>/<model>` (+ `LITELLM_API_BASE`): ADK `LiteLlm`.
Hosted models are wrapped in `ResilientLlm` (timeout, retry, output cap, refusal detection).
Build each role once per process and share it; a model instance serves concurrent turns.
"""

from __future__ import annotations

from typing import Literal

from google.adk.models.base_llm import BaseLlm

from pipeline.core.errors import ConfigError
from pipeline.core.settings.guard_sections import ModelSection
from pipeline.models.classifiers import OfflineGuardrailLlm, OfflineJudgeLlm
from pipeline.models.exemplars import TextEmbedder
from pipeline.models.offline_support import OfflineSupportLlm
from pipeline.models.providers import LITELLM_PREFIX, build_gemini, build_litellm
from pipeline.models.resilient import ResilientLlm

Role = Literal["agent", "guardrail", "judge"]
OFFLINE = "offline"


def build_offline(settings: ModelSection, role: Role, embedder: TextEmbedder | None) -> BaseLlm:
    """The offline model of `role`. Only the agent reads the injected MiniLM embedder: the guard
    classifiers load their own pinned e5 model (`guards/classifier/`)."""
    if role == "agent":
        if embedder is None:
            raise ConfigError("the offline model needs the local embedder (pass embedder=Embedder.load())")
        return OfflineSupportLlm.build(embedder)
    if role == "guardrail":
        return OfflineGuardrailLlm.build(settings.guardrail_threshold)
    if role == "judge":
        return OfflineJudgeLlm.build(settings.judge_model_threshold)
    raise ConfigError(f"unknown model role {role!r}")


def build_hosted(settings: ModelSection, *, gemini_base_url: str | None = None,
                 backoff_initial_s: float = 0.5) -> BaseLlm:
    """The configured hosted model, wrapped; the same model serves every role.

    `gemini_base_url` redirects Gemini (recorded-payload tests, a proxy); `backoff_initial_s`
    is the first retry wait (doubling, with jitter, up to 8 s).
    """
    name = settings.model_name
    if name.startswith(LITELLM_PREFIX):
        inner = build_litellm(name, settings.litellm_api_base, settings.litellm_api_key)
    else:
        inner = build_gemini(name, settings.google_api_key, base_url=gemini_base_url)
    return ResilientLlm.wrap(inner, timeout_s=settings.model_timeout_s,
                             max_retries=settings.model_max_retries,
                             max_output_tokens=settings.model_max_output_tokens,
                             backoff_initial_s=backoff_initial_s)


def build_llm(settings: ModelSection, role: Role, *, embedder: TextEmbedder | None) -> BaseLlm:
    if settings.model_name == OFFLINE:
        return build_offline(settings, role, embedder)
    return build_hosted(settings)


def build_llms(settings: ModelSection, roles: tuple[Role, ...], *,
               embedder: TextEmbedder | None) -> dict[Role, BaseLlm]:
    """A model for each of `roles`: the offline model of each role, or one hosted model shared by
    all of them (one client and one connection pool per process, not one per role)."""
    if settings.model_name == OFFLINE:
        return {role: build_llm(settings, role, embedder=embedder) for role in roles}
    return dict.fromkeys(roles, build_hosted(settings))
