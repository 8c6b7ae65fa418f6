"""Sections only the desk process reads: storage (PostgreSQL, Toolbox, memory, run logs), the turn's
budgets, tracing and the web front end. No guard service is given any of these."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr

from pipeline.core.settings.base import Section, alias, given


class DatabaseSection(Section):
    # Components, not a URL, so passwords with / + = @ # need no quoting.
    postgres_host: str | None = Field(None, description="External server host; unset = embedded pgserver")
    postgres_port: int = Field(5432, description="TCP port of the server (embedded too)")
    postgres_db: str = Field("supportdesk", description="Database name")
    postgres_user: str = Field("supportdesk", description="Application role: migrations, sessions, memory")
    # The passwords are read as `*_given` (None when not given) so that `load_settings` can name
    # every missing one at once; the `postgres_*_password` properties are what database code uses.
    postgres_password_given: SecretStr | None = Field(
        None, validation_alias=alias("POSTGRES_PASSWORD", "postgres_password"),
        description="Password of the application role (required by the desk; never given to the guards)")
    postgres_reader_user: str = Field("supportdesk_reader", description="Role of the read tools")
    postgres_reader_password_given: SecretStr | None = Field(
        None, validation_alias=alias("POSTGRES_READER_PASSWORD", "postgres_reader_password"),
        description="Password of the reader role (required by the desk; never given to the guards)")
    postgres_writer_user: str = Field("supportdesk_writer", description="Role of the action-log tool")
    postgres_writer_password_given: SecretStr | None = Field(
        None, validation_alias=alias("POSTGRES_WRITER_PASSWORD", "postgres_writer_password"),
        description="Password of the writer role (required by the desk; never given to the guards)")
    embedded_pg_dir: Path = Field(Path(".supportdesk/pg"), description="Data folder of the embedded server")
    db_timeout_s: float = Field(5.0, gt=0, description="Connect and statement timeout, seconds")

    @property
    def postgres_password(self) -> SecretStr:
        return given(self.postgres_password_given, "POSTGRES_PASSWORD")

    @property
    def postgres_reader_password(self) -> SecretStr:
        return given(self.postgres_reader_password_given, "POSTGRES_READER_PASSWORD")

    @property
    def postgres_writer_password(self) -> SecretStr:
        return given(self.postgres_writer_password_given, "POSTGRES_WRITER_PASSWORD")

    @property
    def embedded_postgres(self) -> bool:
        return self.postgres_host is None

    @property
    def pg_host(self) -> str:
        return self.postgres_host or "127.0.0.1"


class ToolboxSection(Section):
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

    @property
    def toolbox_url(self) -> str:
        return f"http://{self.toolbox_host}:{self.toolbox_port}"


class MemorySection(Section):
    mem0_api_key: SecretStr | None = Field(None, description="Mem0 Cloud key; set = cloud backend")
    mem0_host: str | None = Field(None, description="Mem0 Cloud base URL override (None = Mem0's default)")
    mem0_dir: Path = Field(Path(".supportdesk/mem0"),
                           description="Mem0's config folder (embedded); keeps ~/.mem0 untouched")
    memory_collection: str = Field("supportdesk_memories", description="pgvector table of the embedded backend")
    memory_top_k: int = Field(5, gt=0, description="Memories asked for per recall")
    t_mem_minscore: float = Field(0.20, validation_alias=alias("T_MEM_MINSCORE", "t_mem_minscore"),
                                  description="Recall score cut-off (cosine similarity, 0..1)")
    t_mem_maxchars: int = Field(400, validation_alias=alias("T_MEM_MAXCHARS", "t_mem_maxchars"),
                                description="Longest memory put in a prompt, characters")
    memory_timeout_s: float = Field(
        5.0, gt=0, description="Recall/save timeout, also the wait for a connection and statement timeout, s")

    @property
    def memory_backend(self) -> Literal["cloud", "embedded"]:
        return "cloud" if self.mem0_api_key is not None else "embedded"


class TurnSection(Section):
    """The turn's budgets and the run log it leaves."""

    t_bud_wall_s: float = Field(20.0, gt=0, validation_alias=alias("T_BUD_WALL", "t_bud_wall_s"),
                                description="Wall-clock budget per turn, seconds")
    t_bud_tools: int = Field(6, gt=0, validation_alias=alias("T_BUD_TOOLS", "t_bud_tools"),
                             description="Tool calls per turn")
    t_bud_tokens: int = Field(16000, gt=0, validation_alias=alias("T_BUD_TOKENS", "t_bud_tokens"),
                              description="Model tokens (input+output) per turn")
    loop_window: int = Field(4, gt=1, description="Recent tool calls searched for an identical repeat")
    history_max_messages: int = Field(20, gt=0, description="Agent session history kept per customer, messages")
    judge_head_start_s: float = Field(
        0.005, ge=0, description="How long the Judge works alone before the Guardrail and the agent start beside "
        "it, seconds (its rules answer within it, so a turn they block spends nothing on the others)")

    runs_dir: Path = Field(Path("runs"), description="Folder of runs/<turn_id>.json")
    runs_keep: int = Field(5000, gt=0, description="Run logs kept (oldest deleted first)")
    runs_max_age_days: float = Field(30.0, gt=0, description="Run logs older than this are deleted, days")



class TracingSection(Section):
    """Arize Phoenix, out of process."""

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

    @property
    def phoenix_url(self) -> str:
        return f"http://{self.phoenix_host}:{self.phoenix_port}"


class WebSection(Section):
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

    supportdesk_demo_password: SecretStr | None = Field(
        None, description="Password of the seeded demo customers (make up generates one)"
    )
