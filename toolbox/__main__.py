"""`python -m toolbox`: run the Toolbox binary in the foreground with the desk's settings."""

import os
import sys

from pipeline.errors import ConfigError
from pipeline.settings import load_settings
from toolbox.server import toolbox_argv, toolbox_env

try:
    settings = load_settings()
except ConfigError as exc:
    sys.exit(f"toolbox: {exc.detail}")
argv = toolbox_argv(settings)
os.execve(argv[0], argv, {**os.environ, **toolbox_env(settings)})
