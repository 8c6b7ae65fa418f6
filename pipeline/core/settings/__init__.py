"""The desk's settings, read once per process and validated at start-up (`load_settings`).

Fields live in sections by concern (`desk_sections.py`, `guard_sections.py`); each process's
class combines only the sections it uses (`processes.py`). Secrets are `SecretStr` and have no
published default: a missing one stops start-up.
"""

from pipeline.core.settings.guard_sections import DEFAULT_MASKED_TYPES, DEFAULT_PHONE_REGIONS, MASKABLE_TYPES
from pipeline.core.settings.processes import (
    AnySettings,
    JudgeSettings,
    MaskerSettings,
    Settings,
    load_settings,
    settings_hash,
)
from pipeline.core.settings.scope import Process

__all__ = ["DEFAULT_MASKED_TYPES", "DEFAULT_PHONE_REGIONS", "MASKABLE_TYPES", "AnySettings", "JudgeSettings",
           "MaskerSettings", "Process", "Settings", "load_settings", "settings_hash"]
