"""First-run secrets: generated once into .env, never overwritten, never a published default."""

from __future__ import annotations

from pathlib import Path

import pytest
from dotenv import dotenv_values

from cli.envfile import DATABASE_SECRETS, DEMO_SECRET, GUARD_SECRET, ensure_local_secrets


@pytest.fixture(autouse=True)
def _no_secrets_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*DATABASE_SECRETS, DEMO_SECRET, GUARD_SECRET, "POSTGRES_HOST"):
        monkeypatch.delenv(name, raising=False)


def test_a_fresh_desk_gets_every_secret_and_the_guards_a_token(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    generated = ensure_local_secrets(env)
    assert set(generated) == {*DATABASE_SECRETS, DEMO_SECRET, GUARD_SECRET}
    assert dotenv_values(env) == generated
    assert len(set(generated.values())) == len(generated)
    assert env.stat().st_mode & 0o777 == 0o600


def test_given_values_are_kept_and_only_the_missing_ones_added(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("POSTGRES_HOST=db.example\nGUARD_TOKEN=chosen-by-the-operator", encoding="utf-8")
    generated = ensure_local_secrets(env)
    assert set(generated) == {DEMO_SECRET}  # an external database's passwords must be given
    values = dotenv_values(env)
    assert values["GUARD_TOKEN"] == "chosen-by-the-operator" and values[DEMO_SECRET] == generated[DEMO_SECRET]
    assert ensure_local_secrets(env) == {}
