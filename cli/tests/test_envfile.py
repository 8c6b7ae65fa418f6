"""First-run secrets: generated once into .env, never overwritten, never a published default."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dotenv import dotenv_values

from cli.envfile import DATABASE_SECRETS, DEMO_SECRET, GUARD_SECRET, PHOENIX_SECRETS, ensure_local_secrets


@pytest.fixture(autouse=True)
def _no_secrets_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*DATABASE_SECRETS, DEMO_SECRET, GUARD_SECRET, *PHOENIX_SECRETS, "POSTGRES_HOST"):
        monkeypatch.delenv(name, raising=False)


def test_a_fresh_desk_gets_every_secret_and_the_guards_a_token(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    generated = ensure_local_secrets(env)
    assert set(generated) == {*DATABASE_SECRETS, DEMO_SECRET, GUARD_SECRET, *PHOENIX_SECRETS}
    assert dotenv_values(env) == generated
    assert len(set(generated.values())) == len(generated)
    assert env.stat().st_mode & 0o777 == 0o600


def test_given_values_are_kept_and_only_the_missing_ones_added(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("POSTGRES_HOST=db.example\nGUARD_TOKEN=chosen-by-the-operator", encoding="utf-8")
    generated = ensure_local_secrets(env)
    assert set(generated) == {DEMO_SECRET, *PHOENIX_SECRETS}  # an external database's passwords must be given
    values = dotenv_values(env)
    assert values["GUARD_TOKEN"] == "chosen-by-the-operator" and values[DEMO_SECRET] == generated[DEMO_SECRET]
    assert ensure_local_secrets(env) == {}


@pytest.fixture()
def file_events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str, int]]]:
    """What happens to files under `tmp_path`: write-opens and chmods (audit hooks), and the mode
    and content of each file at the moment it is renamed into place. The umask is 0, so a file
    created with the default mode would be world-readable."""
    seen: list[tuple[str, str, int]] = []
    active = [True]
    root = str(tmp_path)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if not active[0] or event not in ("open", "os.chmod") or not str(args[0]).startswith(root):
            return
        if event == "os.chmod":
            seen.append(("chmod", str(args[0]), int(args[1])))
        elif isinstance(args[2], int) and args[2] & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            seen.append(("open-for-write", str(args[0]), args[2]))

    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        seen.append(("replace", f"{src} -> {dst}", os.stat(src).st_mode & 0o777))
        assert DEMO_SECRET in Path(src).read_text(encoding="utf-8"), "the secrets are in place before the rename"
        real_replace(src, dst)

    sys.addaudithook(hook)
    monkeypatch.setattr(os, "replace", replace)
    old_umask = os.umask(0)
    try:
        yield seen
    finally:
        os.umask(old_umask)
        active[0] = False


@pytest.mark.parametrize("existing", [None, "MEM0_DIR=/tmp/mem0\n"])
def test_env_is_never_readable_by_others_at_any_moment(tmp_path: Path, file_events: list[tuple[str, str, int]],
                                                       existing: str | None) -> None:
    env = tmp_path / ".env"
    if existing is not None:
        fd = os.open(env, os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, existing.encode())
        os.close(fd)
        file_events.clear()
    ensure_local_secrets(env)
    assert not [e for e in file_events if e[0] == "chmod"], "no file is made private after the fact"
    assert not [e for e in file_events if e[0] == "open-for-write" and e[1] == str(env)], \
        ".env itself is never opened for writing: it is replaced whole"
    creates = [e for e in file_events if e[0] == "open-for-write"]
    assert creates and all(flags & os.O_EXCL for _, _, flags in creates), "a fresh file, never an existing one"
    replaced = [e for e in file_events if e[0] == "replace"]
    assert [mode for _, _, mode in replaced] == [0o600]
    assert env.stat().st_mode & 0o777 == 0o600
    assert existing is None or dotenv_values(env)["MEM0_DIR"] == "/tmp/mem0"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".env"], "no temporary file left behind"
