"""What every settings section shares: how the environment is read, and that a blank secret is refused."""

from __future__ import annotations

from pydantic import AliasChoices, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from pipeline.core.errors import ConfigError


def alias(*names: str) -> AliasChoices:
    """The documented variable name first, then the field name (so overrides may use either)."""
    return AliasChoices(*names)


def given(value: SecretStr | None, variable: str) -> SecretStr:
    """A secret the caller needs; `load_settings` has already checked that its process was given it."""
    if value is None:
        raise ConfigError(f"{variable} is not given to this process")
    return value


class Section(BaseSettings):
    """One concern's fields; a process's settings class combines the sections it uses."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        frozen=True,
    )

    @field_validator("*", mode="after")
    @classmethod
    def _secret_not_blank(cls, value: object) -> object:
        # A secret that is set but blank is a mistake, never "no secret": stop at start-up.
        if isinstance(value, SecretStr) and not value.get_secret_value().strip():
            raise ValueError("must not be empty")
        return value
