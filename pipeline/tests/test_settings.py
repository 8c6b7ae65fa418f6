"""The settings object: validated once, every field documented and listed in .env.example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.errors import ConfigError
from pipeline.settings import Settings, load_settings
from services.launch import env_var_name

ENV_EXAMPLE = Path(__file__).resolve().parents[2] / ".env.example"
SECRETS = {"postgres_password": "p", "postgres_reader_password": "r", "postgres_writer_password": "w"}


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
def test_model_selection(overrides: dict[str, str], model: str) -> None:
    assert load_settings(_env_file=None, **SECRETS, **overrides).model_name == model


@pytest.mark.parametrize(("overrides", "message"), [
    ({"supportdesk_model": "gemini-2.5-pro"}, "GOOGLE_API_KEY is not set"),
    ({"supportdesk_model": "litellm/ollama/llama3"}, "needs LITELLM_API_BASE"),
    ({"masker_types": "EMAIL,PASSPORT"}, "unknown PII types"),
])
def test_unbuildable_configuration_fails_at_start_up(overrides: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(_env_file=None, **SECRETS, **overrides)
