"""Sections a guard service reads: how to reach and trust the guards, the Masker's types, the models.

The Judge process combines `GuardSection`, `MessageLimits` and `ModelSection`; the Masker process
`GuardSection` and `MaskerSection`; the desk all of them (`processes.py`).
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import NoDecode

from pipeline.core.settings.base import Section, given

MASKABLE_TYPES = ("EMAIL", "PHONE", "CARD", "IBAN", "SSN", "IP", "ADDRESS", "NAME")
# Person names are off in the shop's answers, which greet the customer by name.
DEFAULT_MASKED_TYPES = tuple(t for t in MASKABLE_TYPES if t != "NAME")
#: Regions whose national phone formats the Masker reads by default (+ numbers: any region).
DEFAULT_PHONE_REGIONS: tuple[str, ...] = ("US", "GB", "CA", "AU", "IE", "DE", "AT", "CH", "FR", "ES", "IT", "NL")


class GuardSection(Section):
    judge_host: str = Field("127.0.0.1", description="Judge bind/connect host")
    judge_port: int = Field(10002, description="Judge port")
    judge_timeout_s: float = Field(2.0, gt=0, description="Judge read timeout, seconds")
    masker_host: str = Field("127.0.0.1", description="Masker bind/connect host")
    masker_port: int = Field(10003, description="Masker port")
    masker_timeout_s: float = Field(2.0, gt=0, description="Masker read timeout, seconds")
    guard_connect_timeout_s: float = Field(0.5, gt=0, description="Connect timeout to either guard, seconds")
    guard_token: SecretStr | None = Field(
        None, description="Shared secret of the pipeline and the guards: bearer and reply keys derive from it "
        "(required; make up generates it)")
    guard_max_body_bytes: int = Field(65536, gt=0, description="Largest JSON-RPC request a guard accepts, bytes")

    @property
    def guard_secret(self) -> SecretStr:
        return given(self.guard_token, "GUARD_TOKEN")

    @property
    def judge_url(self) -> str:
        return f"http://{self.judge_host}:{self.judge_port}"

    @property
    def masker_url(self) -> str:
        return f"http://{self.masker_host}:{self.masker_port}"


class MessageLimits(Section):
    """Read by the sanitizer in the desk and again by the Judge, which must not trust its caller."""

    max_message_chars: int = Field(2000, gt=0, description="Longest customer message, characters")
    max_message_bytes: int = Field(8000, gt=0, description="Longest customer message, UTF-8 bytes")


class MaskerSection(Section):
    masker_types: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_MASKED_TYPES,
        description="PII types the Masker replaces (comma-separated; add NAME for free text such as delivery notes)")
    masker_phone_regions: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_PHONE_REGIONS,
        description="ISO 3166 regions whose national phone formats the Masker reads (+ numbers: any region)")

    @field_validator("masker_types", "masker_phone_regions", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip().upper() for part in value.split(",") if part.strip())
        return value

    @field_validator("masker_types", mode="after")
    @classmethod
    def _known_types(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:  # blank is a mistake, never "mask nothing": that would be a desk without a Masker
            raise ValueError(f"must name at least one PII type of {list(MASKABLE_TYPES)}")
        unknown = sorted(set(value) - set(MASKABLE_TYPES))
        if unknown:
            raise ValueError(f"unknown PII types {unknown}; known: {list(MASKABLE_TYPES)}")
        return value

    @field_validator("masker_phone_regions", mode="after")
    @classmethod
    def _some_region(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        # Blank is a mistake, never "no national numbers": they would then pass unmasked.
        if not value:
            raise ValueError("must name at least one ISO 3166 region, e.g. US,GB,DE")
        return value


class ModelSection(Section):
    google_api_key: SecretStr | None = Field(None, description="Gemini key; set = Gemini is the default model")
    supportdesk_model: str | None = Field(
        None, description="'offline', a Gemini model name, or 'litellm/<provider>/<model>'"
    )
    gemini_model: str = Field("gemini-2.5-flash", description="Gemini model used when the key is set")
    litellm_api_base: str | None = Field(None, description="Base URL of an OpenAI-compatible/Ollama server")
    litellm_api_key: SecretStr | None = Field(
        None, description="Key for the LiteLLM provider; required unless LITELLM_API_BASE is on this machine")
    model_timeout_s: float = Field(30.0, gt=0, description="Per provider request timeout, seconds")
    model_max_retries: int = Field(3, ge=0, description="Retries on 429/5xx/network only")
    model_max_output_tokens: int = Field(1024, gt=0, description="Output token cap per model call")
    judge_model_threshold: float | None = Field(
        None, ge=0, le=1, description="Offline judge model: P(attack) that blocks, probability 0-1 "
                                      "(unset = the threshold calibrated in guards/judge/model/judge.md)")
    guardrail_threshold: float | None = Field(
        None, ge=0, le=1, description="Offline guardrail: P(off topic) that blocks, probability 0-1 (unset = "
                                      "the threshold calibrated in guards/guardrail/model/guardrail.md)")

    @model_validator(mode="after")
    def _model_is_buildable(self) -> ModelSection:
        name = self.model_name
        if name != "offline" and not name.startswith("litellm/") and self.google_api_key is None:
            raise ValueError(f"SUPPORTDESK_MODEL={name!r} is a Gemini model but GOOGLE_API_KEY is not set")
        if name.startswith("litellm/") and not self.litellm_api_base:
            raise ValueError(f"SUPPORTDESK_MODEL={name!r} needs LITELLM_API_BASE")
        return self

    @cached_property
    def model_name(self) -> str:
        """The model in force: explicit SUPPORTDESK_MODEL, else Gemini with a key, else offline."""
        if self.supportdesk_model:
            return self.supportdesk_model
        return self.gemini_model if self.google_api_key is not None else "offline"
