"""What each kind of desk process must be given, may hold, and must not find misspelt in `.env`.

Processes: `desk` is everything that reaches the database or calls the guards (web, CLI, Toolbox,
migrations, evals); `judge` and `masker` are the guard services, whose settings classes hold only
their own sections (`processes.py`). A guard needs the shared guard token and nothing else secret,
except the Judge, which needs the hosted model's key when one is configured. `load_settings`
checks the required ones and drops every other secret, and `services/launch.py` never passes them
to a guard's environment in the first place.

`.env` is checked for names that look like ours but are not (a typo is otherwise silently
ignored and its default used). Only the file: the process environment also holds variables other
software sets with the same prefixes (Docker's `POSTGRES_INITDB_ARGS`, a platform's
`WEB_CONCURRENCY`), and refusing those would stop a correct desk. Prefixes that third-party SDKs
also read from `.env` in Docker Compose (`GOOGLE_`, `GEMINI_`, `LITELLM_`) are not checked.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from dotenv import dotenv_values
from pydantic import SecretStr

from pipeline.core.settings.guard_sections import ModelSection

if TYPE_CHECKING:
    from pipeline.core.settings.processes import AnySettings

Process = Literal["desk", "judge", "masker"]
_DB_SECRETS = ("postgres_password_given", "postgres_reader_password_given", "postgres_writer_password_given")
REQUIRED: dict[Process, tuple[str, ...]] = {
    "desk": (*_DB_SECRETS, "guard_token"),
    "judge": ("guard_token",),
    "masker": ("guard_token",),
}
FOREIGN_PREFIXES = frozenset({"GOOGLE_", "GEMINI_", "LITELLM_"})


def secret_fields(cls: type[AnySettings] | None = None) -> tuple[str, ...]:
    """Every field of `cls` (default: the desk's) holding a secret (typed `SecretStr`), new ones included."""
    from pipeline.core.settings.processes import Settings

    fields = (cls or Settings).model_fields
    return tuple(name for name, info in fields.items() if SecretStr in _types(info.annotation))


def secrets_used(settings: AnySettings, process: Process) -> frozenset[str]:
    """The secret fields `process` uses; it must not be given the others."""
    if process == "desk":
        return frozenset(secret_fields())
    used = {"guard_token"}
    if process == "judge" and isinstance(settings, ModelSection):  # its model tier runs on the configured model
        if settings.model_name.startswith("litellm/"):
            used.add("litellm_api_key")
        elif settings.model_name != "offline":
            used.add("google_api_key")
    return frozenset(used)


def env_names(name: str) -> list[str]:
    """The environment variable names a settings field is read from, the documented one first."""
    from pipeline.core.settings.processes import Settings

    alias = Settings.model_fields[name].validation_alias
    choices = getattr(alias, "choices", None)
    if choices:
        return list(dict.fromkeys(str(choice).upper() for choice in choices))
    return [str(alias or name).upper()]


def env_var(name: str) -> str:
    """The documented environment variable of a settings field."""
    return env_names(name)[0]


def unknown_env_file_names(path: Path) -> list[str]:
    """One line per name in `path` with one of our prefixes that no setting reads."""
    from pipeline.core.settings.processes import Settings

    if not path.is_file():
        return []
    known = {env for name in Settings.model_fields for env in env_names(name)}
    documented = sorted(env_var(name) for name in Settings.model_fields)
    prefixes = {env.split("_", 1)[0] + "_" for env in known if "_" in env} - FOREIGN_PREFIXES
    problems = []
    for raw in dotenv_values(path):
        name = raw.upper()
        if name in known or not any(name.startswith(prefix) for prefix in prefixes):
            continue
        close = difflib.get_close_matches(name, documented, n=1, cutoff=0.75)
        problems.append(f"  {name}: not a setting" + (f" (did you mean {close[0]}?)" if close else ""))
    return problems


def _types(annotation: object) -> tuple[object, ...]:
    return getattr(annotation, "__args__", (annotation,))
