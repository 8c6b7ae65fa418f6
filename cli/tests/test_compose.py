"""docker-compose.yml cannot run here, but it must stay valid and define every service the code expects."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from db.tests.fixtures import require_system_binary

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = {"postgres", "migrate", "toolbox", "judge", "masker", "phoenix", "web"}
SECRETS = ("POSTGRES_PASSWORD=p\nPOSTGRES_READER_PASSWORD=r\nPOSTGRES_WRITER_PASSWORD=w\nGUARD_TOKEN=g\n"
           "PHOENIX_SECRET=s\nPHOENIX_ADMIN_SECRET=a\nPHOENIX_DEFAULT_ADMIN_INITIAL_PASSWORD=i\n")


@pytest.fixture()
def compose_dir(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "docker-compose.yml", tmp_path / "docker-compose.yml")
    (tmp_path / ".env").write_text(SECRETS)
    return tmp_path


def test_every_expected_service_is_defined_with_health_ordering() -> None:
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = spec["services"]
    assert set(services) == EXPECTED
    assert services["web"]["depends_on"] == {
        name: {"condition": "service_healthy"} for name in ("toolbox", "judge", "masker", "phoenix")}
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in EXPECTED - {"migrate", "web"}:
        assert "healthcheck" in services[name], name


def test_no_secret_has_a_default() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    assert "${POSTGRES_PASSWORD:?" in text
    # Every secret is taken from .env or stops `docker compose` with its name: `NAME: ${NAME:?...}`.
    for name in re.findall(r"^\s+(\w*(?:PASSWORD|SECRET)): ", text, re.M):
        assert f"{name}: ${{{name}:?" in text, name


def test_compose_config_validates(compose_dir: Path) -> None:
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        command = ["docker", "compose", "config", "--services"]
    else:
        command = [require_system_binary("docker-compose"), "config", "--services"]
    done = subprocess.run(command, cwd=compose_dir, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) == EXPECTED
