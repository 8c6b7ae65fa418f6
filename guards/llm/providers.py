"""Hosted models: ADK's `Gemini` and `LiteLlm`, built so that only `ResilientLlm` retries, and
`build_hosted`, the configured one wrapped once (shared by the desk and the Judge service, which
may import only the guards and the kernel); the same model serves every role.

A provider that cannot be built (no key, unknown model name, LiteLLM not installed, unknown
LiteLLM provider) raises `ConfigError` at start-up; nothing falls back to the offline model.
"""

from __future__ import annotations

import os
import re

from google.adk.models.base_llm import BaseLlm
from google.adk.models.google_llm import Gemini
from google.genai import types
from pydantic import SecretStr

from guards.llm.resilient import ResilientLlm
from pipeline.core.errors import ConfigError
from pipeline.core.outbound import on_this_machine, refuse_outside_calls
from pipeline.core.settings.guard_sections import ModelSection

LITELLM_PREFIX = "litellm/"
OFFLINE = "offline"


def build_gemini(model: str, api_key: SecretStr | None, *, base_url: str | None = None) -> Gemini:
    """Gemini through google-genai; `base_url` points it at another endpoint (tests, proxies)."""
    if api_key is None or not api_key.get_secret_value().strip():
        raise ConfigError(f"model {model!r} is a Gemini model but GOOGLE_API_KEY is not set")
    refuse_outside_calls(f"Gemini model {model!r}", base_url)
    if not any(re.fullmatch(pattern, model) for pattern in Gemini.supported_models()):
        raise ConfigError(f"unknown model name {model!r}: expected 'offline', a Gemini model "
                          f"(gemini-...) or '{LITELLM_PREFIX}<provider>/<model>'")
    return Gemini(
        model=model,
        base_url=base_url,
        client_kwargs={"api_key": api_key.get_secret_value()},
        # One attempt: google-genai otherwise retries connection errors on its own.
        retry_options=types.HttpRetryOptions(attempts=1),
    )


def build_litellm(spec: str, api_base: str | None, api_key: SecretStr | None) -> BaseLlm:
    """`litellm/<provider>/<model>` (e.g. `litellm/openai/gpt-4o-mini`, `litellm/ollama_chat/qwen3`)."""
    provider, _, model = spec.removeprefix(LITELLM_PREFIX).partition("/")
    if not provider or not model:
        raise ConfigError(f"model {spec!r} must look like '{LITELLM_PREFIX}<provider>/<model>'")
    if not api_base:
        raise ConfigError(f"model {spec!r} needs LITELLM_API_BASE")
    refuse_outside_calls(f"LiteLLM model {spec!r}", api_base)
    # Without it, importing litellm downloads its model price map.
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    try:
        import litellm
        from google.adk.models.lite_llm import LiteLlm
    except ImportError as exc:
        raise ConfigError(f"model {spec!r} needs LiteLLM: install google-adk[extensions] ({exc})") from exc
    if provider not in {str(p.value) if hasattr(p, "value") else str(p) for p in litellm.provider_list}:
        raise ConfigError(f"model {spec!r}: LiteLLM does not know the provider {provider!r}")
    if api_key is None and not on_this_machine(api_base):
        # A remote provider without its key would pass start-up and then fail every turn with a 401.
        raise ConfigError(f"model {spec!r} at {api_base} needs LITELLM_API_KEY "
                          "(only a server on this machine may go without one)")
    # Local OpenAI-compatible servers ignore the key, but the OpenAI client refuses to start without one.
    key = api_key.get_secret_value() if api_key is not None else "unused"
    return LiteLlm(model=f"{provider}/{model}", api_base=api_base, api_key=key,
                   num_retries=0, max_retries=0)


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
