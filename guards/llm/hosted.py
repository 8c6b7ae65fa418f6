"""The configured hosted model (Gemini or LiteLLM), wrapped once; the same model serves every role.

Shared by the desk (`pipeline/models/factory.py`) and the Judge service, which may import only
the guards and the kernel.
"""

from __future__ import annotations

from google.adk.models.base_llm import BaseLlm

from guards.llm.providers import LITELLM_PREFIX, build_gemini, build_litellm
from guards.llm.resilient import ResilientLlm
from pipeline.core.settings.guard_sections import ModelSection

OFFLINE = "offline"


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
