"""`python -m toolbox`: run the Toolbox binary in the foreground with the desk's settings.

Not an exec: this process serves the desk's JWKS to the binary (toolbox/jwks.py) while it runs,
and passes SIGTERM/SIGINT on to it.
"""

import os
import signal
import subprocess
import sys

from pipeline.core.errors import ConfigError
from pipeline.core.settings import load_settings
from toolbox.server import start_jwks, toolbox_argv, toolbox_env

try:
    settings = load_settings()
except ConfigError as exc:
    sys.exit(f"toolbox: {exc.detail}")
jwks = start_jwks(settings)
binary = subprocess.Popen(toolbox_argv(settings), env={**os.environ, **toolbox_env(settings, auth_server=jwks.url)})
for signum in (signal.SIGTERM, signal.SIGINT):
    signal.signal(signum, lambda received, _: binary.send_signal(received))
code = binary.wait()
jwks.stop()
sys.exit(code)
