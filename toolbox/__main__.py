"""`python -m toolbox`: run the Toolbox binary in the foreground with the desk's settings."""

import os
import sys

from toolbox_server.main import get_binary_path

from pipeline.errors import ConfigError
from pipeline.settings import load_settings
from toolbox.server import CONFIG, toolbox_env

try:
    settings = load_settings()
except ConfigError as exc:
    sys.exit(f"toolbox: {exc.detail}")
os.execve(get_binary_path(), [
    "toolbox", "--config", str(CONFIG), "--address", settings.toolbox_host, "--port", str(settings.toolbox_port),
    "--disable-version-check", "--disable-reload"], {**os.environ, **toolbox_env(settings)})
