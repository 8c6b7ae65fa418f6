"""The desk's one settings object, read once per process and validated at start-up.

Environment variable names are the field names upper-cased (or the alias shown). Every field
is listed in `.env.example` with its default and unit. Secrets are `SecretStr` and have no
published default: a missing one stops start-up (see `load_settings`).
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from guards.schema import DEFAULT_PHONE_REGIONS
from pipeline.errors import ConfigError
from pipeline.settings_scope import (
    REQUIRED,
    Process,
    env_var,
    secret_fields,
    secrets_used,
    unknown_env_file_names,
)

MASKABLE_TYPES = ("EMAIL", "PHONE", "CARD", "IBAN", "SSN", "IP", "ADDRESS", "NAME")
# Person names are off in the shop's answers, which greet the customer by name.
DEFAULT_MASKED_TYPES = tuple(t for t in MASKABLE_TYPES if t != "NAME")


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        frozen=True,
    )

    # --- PostgreSQL (components, so passwords with / + = @ # need no quoting) ---
    postgres_host: str | None = Field(None, description="External server host; unset = embedded pgserver")
    postgres_port: int = Field(5432, description="TCP port of the server (embedded too)")
    postgres_db: str = Field("supportdesk", description="Database name")
    postgres_user: str = Field("supportdesk", description="Application role: migrations, sessions, memory")
    # The passwords are read as `*_given` (None when not given) so the guards can start without
    # them; the `postgres_*_password` properties below are what database code uses.
    postgres_password_given: SecretStr | None = Field(
        None, validation_alias=_alias("POSTGRES_PASSWORD", "postgres_password"),
        description="Password of the application role (required by the desk; never given to the guards)")
    postgres_reader_user: str = Field("supportdesk_reader", description="Role of the read tools")
    postgres_reader_password_given: SecretStr | None = Field(
        None, validation_alias=_alias("POSTGRES_READER_PASSWORD", "postgres_reader_password"),
        description="Password of the reader role (required by the desk; never given to the guards)")
    postgres_writer_user: str = Field("supportdesk_writer", description="Role of the action-log tool")
    postgres_writer_password_given: SecretStr | None = Field(
        None, validation_alias=_alias("POSTGRES_WRITER_PASSWORD", "postgres_writer_password"),
        description="Password of the writer role (required by the desk; never given to the guards)")
    embedded_pg_dir: Path = Field(Path(".supportdesk/pg"), description="Data folder of the embedded server")
    db_timeout_s: float = Field(5.0, gt=0, description="Connect and statement timeout, seconds")

    # --- MCP Toolbox ---
    toolbox_host: str = Field("127.0.0.1", description="Toolbox bind/connect host")
    toolbox_port: int = Field(5000, description="Toolbox port")
    toolbox_timeout_s: float = Field(5.0, gt=0, description="Per tool call timeout, seconds")
    toolbox_toolset: str = Field("support-desk", description="Toolset (group) the agent loads")
    toolbox_signing_key_file: Path = Field(
        Path(".supportdesk/toolbox-signing-key.json"),
        description="Private ES256 key (JWK file, mode 0600) signing the desk's Toolbox tokens; created on first run")
    toolbox_token_ttl_s: int = Field(30, gt=0, le=300, description="Lifetime of one Toolbox token, seconds")
    toolbox_jwks_port: int = Field(5001, description="127.0.0.1 port serving the desk's public key to the Toolbox")
    pending_action_key_file: Path = Field(
        Path(".supportdesk/pending-action-key"),
        description="HMAC-SHA256 key (file, mode 0600) signing actions awaiting a yes; created on first run")
    pending_action_ttl_s: int = Field(900, gt=0, le=86400,
                                      description="How long a proposed action waits for the customer's yes, seconds")

    # --- Guards (A2A services) ---
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
    masker_types: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_MASKED_TYPES,
        description="PII types the Masker replaces (comma-separated; add NAME for free text such as delivery notes)")
    masker_phone_regions: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_PHONE_REGIONS,
        description="ISO 3166 regions whose national phone formats the Masker reads (+ numbers: any region)")
    judge_model_threshold: float | None = Field(
        None, ge=0, le=1, description="Offline judge model: P(attack) that blocks, probability 0-1 "
                                      "(unset = the threshold calibrated in guards/judge/model/judge.md)")

    # --- Sanitizer ---
    max_message_chars: int = Field(2000, gt=0, description="Longest customer message, characters")
    max_message_bytes: int = Field(8000, gt=0, description="Longest customer message, UTF-8 bytes")

    # --- Models ---
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
    guardrail_threshold: float | None = Field(
        None, ge=0, le=1, description="Offline guardrail: P(off topic) that blocks, probability 0-1 (unset = "
                                      "the threshold calibrated in pipeline/models/data/guardrail/guardrail.md)")

    # --- Memory ---
    mem0_api_key: SecretStr | None = Field(None, description="Mem0 Cloud key; set = cloud backend")
    mem0_host: str | None = Field(None, description="Mem0 Cloud base URL override (None = Mem0's default)")
    mem0_dir: Path = Field(Path(".supportdesk/mem0"),
                           description="Mem0's config folder (embedded); keeps ~/.mem0 untouched")
    memory_collection: str = Field("supportdesk_memories", description="pgvector table of the embedded backend")
    memory_top_k: int = Field(5, gt=0, description="Memories asked for per recall")
    t_mem_minscore: float = Field(0.20, validation_alias=_alias("T_MEM_MINSCORE", "t_mem_minscore"),
                                  description="Recall score cut-off (cosine similarity, 0..1)")
    t_mem_maxchars: int = Field(400, validation_alias=_alias("T_MEM_MAXCHARS", "t_mem_maxchars"),
                                description="Longest memory put in a prompt, characters")
    memory_timeout_s: float = Field(
        5.0, gt=0, description="Recall/save timeout, also the wait for a connection and statement timeout, s")

    # --- Turn budgets ---
    t_bud_wall_s: float = Field(20.0, gt=0, validation_alias=_alias("T_BUD_WALL", "t_bud_wall_s"),
                                description="Wall-clock budget per turn, seconds")
    t_bud_tools: int = Field(6, gt=0, validation_alias=_alias("T_BUD_TOOLS", "t_bud_tools"),
                             description="Tool calls per turn")
    t_bud_tokens: int = Field(16000, gt=0, validation_alias=_alias("T_BUD_TOKENS", "t_bud_tokens"),
                              description="Model tokens (input+output) per turn")
    loop_window: int = Field(4, gt=1, description="Recent tool calls searched for an identical repeat")
    history_max_messages: int = Field(20, gt=0, description="Agent session history kept per customer, messages")

    # --- Run log ---
    runs_dir: Path = Field(Path("runs"), description="Folder of runs/<turn_id>.json")
    runs_keep: int = Field(5000, gt=0, description="Run logs kept (oldest deleted first)")
    runs_max_age_days: float = Field(30.0, gt=0, description="Run logs older than this are deleted, days")

    # --- Tracing (Arize Phoenix, out of process) ---
    phoenix_host: str = Field("127.0.0.1", description="Phoenix host")
    phoenix_port: int = Field(6006, description="Phoenix HTTP port (UI and OTLP /v1/traces)")
    phoenix_project: str = Field("supportdesk", description="Phoenix project name of the desk's traces")
    phoenix_venv: Path = Field(Path(".venv-phoenix"), description="Virtualenv holding the Phoenix server")
    phoenix_working_dir: Path = Field(Path(".supportdesk/phoenix"), description="Phoenix's data folder")
    tracing_enabled: bool = Field(True, description="Export OpenTelemetry spans to Phoenix")
    phoenix_secret: SecretStr | None = Field(
        None, description="Phoenix's JWT signing key, >= 32 characters with a digit and a lower-case letter "
        "(make up generates one)")
    phoenix_admin_secret: SecretStr | None = Field(
        None, description="Bearer token the desk exports traces with; Phoenix's system user (make up generates one)")
    phoenix_default_admin_initial_password: SecretStr | None = Field(
        None, description="First password of Phoenix's admin@localhost operator login (make up generates one)")

    # --- Web ---
    web_host: str = Field("127.0.0.1", description="Web bind host")
    web_port: int = Field(8000, description="Web port")
    forwarded_allow_ips: str = Field(
        "", description="Comma-separated proxy addresses whose X-Forwarded-* headers are trusted; empty = none")
    session_ttl_s: int = Field(8 * 3600, gt=0, description="Login session lifetime, seconds")
    login_max_attempts: int = Field(5, gt=0, description="Failed logins per email or address per window")
    login_window_s: int = Field(300, gt=0, description="Login rate-limit window, seconds")
    login_device_ttl_s: int = Field(
        90 * 86400, gt=0, description="Lifetime of a known-device cookie that skips the per-email login limit, seconds")
    password_hash_threads: int = Field(2, gt=0, description="Threads checking passwords (argon2, 64 MiB each)")
    password_hash_queue: int = Field(
        8, ge=0, description="Password checks that may wait for a thread before logins answer 503, checks")
    chat_max_per_window: int = Field(30, gt=0, description="Chat turns per customer per window")
    chat_window_s: int = Field(60, gt=0, description="Chat rate-limit window, seconds")
    chat_max_body_bytes: int = Field(16384, gt=0, description="Largest /api/chat body, bytes")

    # --- Demo data ---
    supportdesk_demo_password: SecretStr | None = Field(
        None, description="Password of the seeded demo customers (make up generates one)"
    )

    @field_validator(
        "postgres_password_given", "postgres_reader_password_given", "postgres_writer_password_given", "guard_token",
        "google_api_key", "mem0_api_key", "litellm_api_key", "phoenix_secret", "phoenix_admin_secret",
        "phoenix_default_admin_initial_password", mode="after"
    )
    @classmethod
    def _not_blank(cls, value: SecretStr | None) -> SecretStr | None:
        # A secret that is set but blank is a mistake, never "no secret": stop at start-up.
        if value is not None and not value.get_secret_value().strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("masker_types", "masker_phone_regions", mode="before")
    @classmethod
    def _split_types(cls, value: object) -> object:
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

    @model_validator(mode="after")
    def _model_is_buildable(self) -> Settings:
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

    @property
    def postgres_password(self) -> SecretStr:
        return _given(self.postgres_password_given, "POSTGRES_PASSWORD")

    @property
    def postgres_reader_password(self) -> SecretStr:
        return _given(self.postgres_reader_password_given, "POSTGRES_READER_PASSWORD")

    @property
    def postgres_writer_password(self) -> SecretStr:
        return _given(self.postgres_writer_password_given, "POSTGRES_WRITER_PASSWORD")

    @property
    def guard_secret(self) -> SecretStr:
        return _given(self.guard_token, "GUARD_TOKEN")

    @property
    def embedded_postgres(self) -> bool:
        return self.postgres_host is None

    @property
    def pg_host(self) -> str:
        return self.postgres_host or "127.0.0.1"

    @property
    def judge_url(self) -> str:
        return f"http://{self.judge_host}:{self.judge_port}"

    @property
    def masker_url(self) -> str:
        return f"http://{self.masker_host}:{self.masker_port}"

    @property
    def toolbox_url(self) -> str:
        return f"http://{self.toolbox_host}:{self.toolbox_port}"

    @property
    def phoenix_url(self) -> str:
        return f"http://{self.phoenix_host}:{self.phoenix_port}"

    @property
    def memory_backend(self) -> Literal["cloud", "embedded"]:
        return "cloud" if self.mem0_api_key is not None else "embedded"


def _given(value: SecretStr | None, variable: str) -> SecretStr:
    # Unreachable through load_settings, which checks what each process requires.
    if value is None:
        raise ConfigError(f"{variable} is not given to this process")
    return value


def settings_hash(settings: Settings) -> str:
    """A short fingerprint of the configuration in force, for run logs and eval summaries."""
    # Secrets are dumped masked, so the hash identifies the configuration without revealing it.
    return hashlib.sha256(settings.model_dump_json().encode()).hexdigest()[:16]


def load_settings(*, process: Process = "desk", **overrides: object) -> Settings:
    """Read the environment (and `.env`) once for `process`; any problem is one clear ConfigError.

    A misspelt desk variable in `.env`, an invalid value, or a secret `process` requires and was
    not given stops start-up; secrets `process` does not use are dropped (`settings_scope`).
    """
    env_file = overrides.get("_env_file", Settings.model_config.get("env_file"))
    problems = unknown_env_file_names(Path(str(env_file))) if isinstance(env_file, str | Path) else []
    settings = None
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        for err in exc.errors():
            field = ".".join(str(part) for part in err["loc"]) or "settings"
            what = "is required but not set" if err["type"] == "missing" else err["msg"]
            problems.append(f"  {field.upper()}: {what}")
    if settings is not None:
        problems += [f"  {env_var(name)}: is required but not set"
                     for name in REQUIRED[process] if getattr(settings, name) is None]
    if settings is not None and not problems:
        used = secrets_used(settings, process)
        return settings.model_copy(update={name: None for name in secret_fields() if name not in used})
    raise ConfigError("invalid settings:\n" + "\n".join(problems),
                      user_message="The support desk is not configured:\n" + "\n".join(problems))
