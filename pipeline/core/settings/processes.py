"""Each process's settings class, made of the sections it uses, and the one way to read it.

| process | sections                                        | secrets it must be given     |
|---------|-------------------------------------------------|------------------------------|
| desk    | every section (web, CLI, Toolbox, migrations, evals) | database passwords, guard token |
| judge   | guard, message limits, model                    | guard token (+ the hosted model's key) |
| masker  | guard, masker                                   | guard token                  |

A guard's class has no database, memory or web fields at all, so it cannot read or log them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal, overload

from pydantic import ValidationError

from pipeline.core.errors import ConfigError
from pipeline.core.settings.desk_sections import (
    DatabaseSection,
    MemorySection,
    ToolboxSection,
    TracingSection,
    TurnSection,
    WebSection,
)
from pipeline.core.settings.guard_sections import GuardSection, MaskerSection, MessageLimits, ModelSection
from pipeline.core.settings.scope import REQUIRED, Process, env_var, secret_fields, secrets_used, unknown_env_file_names


class JudgeSettings(GuardSection, MessageLimits, ModelSection):
    """What the Judge service reads."""


class MaskerSettings(GuardSection, MaskerSection):
    """What the Masker service reads."""


class Settings(DatabaseSection, ToolboxSection, JudgeSettings, MaskerSettings, MemorySection, TurnSection,
               TracingSection, WebSection):
    """The desk's settings: every section (so it also serves where a guard's class is wanted, as in
    tests that build a guard in-process). Variable names are the field names upper-cased (or the
    alias shown); every field is listed in `.env.example` with its default and unit."""


AnySettings = Settings | JudgeSettings | MaskerSettings
SETTINGS_OF: dict[Process, type[AnySettings]] = {"desk": Settings, "judge": JudgeSettings, "masker": MaskerSettings}


def settings_hash(settings: AnySettings) -> str:
    """A short fingerprint of the configuration in force, for run logs and eval summaries."""
    # Secrets are dumped masked, so the hash identifies the configuration without revealing it.
    return hashlib.sha256(settings.model_dump_json().encode()).hexdigest()[:16]


@overload
def load_settings(*, process: Literal["desk"] = "desk", **overrides: object) -> Settings: ...
@overload
def load_settings(*, process: Literal["judge"], **overrides: object) -> JudgeSettings: ...
@overload
def load_settings(*, process: Literal["masker"], **overrides: object) -> MaskerSettings: ...
def load_settings(*, process: Process = "desk", **overrides: object) -> AnySettings:
    """Read the environment (and `.env`) once for `process`; any problem is one clear ConfigError.

    A misspelt desk variable in `.env`, an invalid value, or a secret `process` requires and was
    not given stops start-up; secrets `process` does not use are dropped (`scope.py`).
    """
    cls = SETTINGS_OF[process]
    env_file = overrides.get("_env_file", cls.model_config.get("env_file"))
    problems = unknown_env_file_names(Path(str(env_file))) if isinstance(env_file, str | Path) else []
    settings = None
    try:
        settings = cls(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        for err in exc.errors():
            field = ".".join(str(part) for part in err["loc"]) or "settings"
            what = "is required but not set" if err["type"] == "missing" else err["msg"]
            problems.append(f"  {field.upper()}: {what}")
    if settings is not None:
        problems += [f"  {env_var(name)}: is required but not set"
                     for name in REQUIRED[process] if getattr(settings, name) is None]
    if settings is not None and not problems:
        unused = [name for name in secret_fields(cls) if name not in secrets_used(settings, process)]
        return settings.model_copy(update=dict.fromkeys(unused))
    raise ConfigError("invalid settings:\n" + "\n".join(problems),
                      user_message="The support desk is not configured:\n" + "\n".join(problems))
