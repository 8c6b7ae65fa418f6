"""Where the desk may send a customer's words: a hosted endpoint, or only this machine.

The test suite sets `SUPPORTDESK_OFFLINE_ONLY=1` (root `conftest.py`), in the spirit of
pydantic-ai's `ALLOW_MODEL_REQUESTS = False`: a hosted client (Gemini, LiteLLM, Mem0 Cloud) may
then be built only against a loopback endpoint — a recorded-payload replay server — and anything
else stops at build time, before a request could leave the machine. Outside tests the variable is
unset and this module only answers `on_this_machine`.
"""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from pipeline.core.errors import ConfigError

OFFLINE_ONLY_ENV = "SUPPORTDESK_OFFLINE_ONLY"
#: The variables that point the desk (or a library it loads) at a hosted model or memory service.
HOSTED_SWITCHES = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "SUPPORTDESK_MODEL", "GEMINI_MODEL", "LITELLM_API_BASE",
                   "LITELLM_API_KEY", "MEM0_API_KEY", "MEM0_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def on_this_machine(url: str | None) -> bool:
    host = urlsplit(url).hostname or "" if url else ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refuse_outside_calls(client: str, url: str | None) -> None:
    """Raise `ConfigError` when outside calls are disabled and `url` (None = the client's public
    default endpoint) is not on this machine."""
    if os.environ.get(OFFLINE_ONLY_ENV) == "1" and not on_this_machine(url):
        raise ConfigError(f"{client} would call {url or 'its public endpoint'}, but outside calls are "
                          f"disabled ({OFFLINE_ONLY_ENV}=1): point it at a loopback replay server")
