"""The settings object: validated once, every field documented and listed in .env.example."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pipeline.core.errors import ConfigError
from pipeline.core.settings import Settings, load_settings
from pipeline.core.settings.scope import Process, secret_fields
from services.launch import env_var_name

ENV_EXAMPLE = Path(__file__).resolve().parents[2] / ".env.example"
SECRETS: dict[str, Any] = {"postgres_password": "p", "postgres_reader_password": "r", "postgres_writer_password": "w",
           "guard_token": "g"}


def test_every_setting_is_documented_and_listed_in_env_example() -> None:
    listed = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", ENV_EXAMPLE.read_text(), re.M))
    expected = {env_var_name(name, info) for name, info in Settings.model_fields.items()}
    assert listed == expected
    undocumented = [name for name, info in Settings.model_fields.items() if not info.description]
    assert undocumented == []


@pytest.mark.parametrize("missing", sorted(SECRETS))
def test_missing_secret_stops_start_up_with_its_name(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    for name in SECRETS:
        monkeypatch.delenv(name.upper(), raising=False)
    values = {k: v for k, v in SECRETS.items() if k != missing}
    with pytest.raises(ConfigError, match=missing.upper() + ": is required"):
        load_settings(_env_file=None, **values)


@pytest.mark.parametrize("blank", ["", "   "])
@pytest.mark.parametrize("secret", ["postgres_password", "guard_token", "google_api_key", "mem0_api_key",
                                    "litellm_api_key"])
def test_blank_secret_is_refused(secret: str, blank: str) -> None:
    with pytest.raises(ConfigError, match=f"{secret.upper()}: .*must not be empty"):
        load_settings(_env_file=None, **{**SECRETS, secret: blank})


@pytest.mark.parametrize(("overrides", "model"), [
    ({}, "offline"),
    ({"google_api_key": "k"}, "gemini-2.5-flash"),
    ({"google_api_key": "k", "supportdesk_model": "offline"}, "offline"),
    ({"supportdesk_model": "litellm/ollama/llama3", "litellm_api_base": "http://127.0.0.1:1"},
     "litellm/ollama/llama3"),
])
def test_model_selection(overrides: dict[str, Any], model: str) -> None:
    assert load_settings(_env_file=None, **SECRETS, **overrides).model_name == model


@pytest.mark.parametrize(("overrides", "message"), [
    ({"supportdesk_model": "gemini-2.5-pro"}, "GOOGLE_API_KEY is not set"),
    ({"supportdesk_model": "litellm/ollama/llama3"}, "needs LITELLM_API_BASE"),
    ({"masker_types": "EMAIL,PASSPORT"}, "unknown PII types"),
])
def test_unbuildable_configuration_fails_at_start_up(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(_env_file=None, **SECRETS, **overrides)


@pytest.mark.parametrize(("field", "message"), [("masker_types", "must name at least one PII type"),
                                              ("masker_phone_regions", "must name at least one ISO 3166 region")])
def test_a_blank_masker_list_stops_start_up(field: str, message: str) -> None:
    with pytest.raises(ConfigError, match=rf"{field.upper()}: .*{message}"):
        blank: dict[str, Any] = {**SECRETS, field: ""}
        load_settings(_env_file=None, **blank)


def test_a_misspelt_setting_in_env_file_stops_start_up_naming_it(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("GUARD_TOKN=x\nT_BUD_WALLS=3\nJUDGE_PORT=10002\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_settings(_env_file=env_file, **SECRETS)
    assert "GUARD_TOKN: not a setting (did you mean GUARD_TOKEN?)" in raised.value.detail
    assert "T_BUD_WALLS: not a setting (did you mean T_BUD_WALL?)" in raised.value.detail
    assert "JUDGE_PORT" not in raised.value.detail


def test_only_the_env_file_is_checked_and_only_for_our_prefixes(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The process environment holds other software's POSTGRES_/WEB_ variables; SDKs own GOOGLE_ etc."""
    env_file = tmp_path / ".env"
    env_file.write_text("GOOGLE_CLOUD_PROJECT=p\nLITELLM_LOG=INFO\nCOMPOSE_PROJECT_NAME=desk\n", encoding="utf-8")
    monkeypatch.setenv("POSTGRES_INITDB_ARGS", "--data-checksums")
    monkeypatch.setenv("WEB_CONCURRENCY", "2")
    assert load_settings(_env_file=env_file, **SECRETS).guard_token is not None


@pytest.mark.parametrize("process", ["judge", "masker"])
def test_a_guard_needs_only_the_guard_token_and_keeps_no_other_secret(process: Process) -> None:
    settings = load_settings(_env_file=None, process=process, guard_token="g", google_api_key="k",
                             supportdesk_model="offline", mem0_api_key="m", postgres_password="p")
    held = {name for name in secret_fields() if getattr(settings, name, None) is not None}
    assert held == {"guard_token"}
    assert not hasattr(settings, "postgres_password_given")  # a guard's class has no database section
    with pytest.raises(ConfigError, match="GUARD_TOKEN: is required"):
        load_settings(_env_file=None, process=process)


def test_a_judge_on_a_hosted_model_keeps_that_models_key() -> None:
    settings = load_settings(_env_file=None, process="judge", guard_token="g", google_api_key="k", mem0_api_key="m")
    assert settings.google_api_key is not None and not hasattr(settings, "mem0_api_key")
