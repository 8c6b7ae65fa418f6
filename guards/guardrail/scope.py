"""The Guardrail's written scope (`scope.yaml`): read once, validated, rendered as text."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from guards.guardrail.contact import ContactDetails
from guards.guardrail.subject import SubjectChanges
from guards.judge.rules import Rule
from pipeline.core.errors import ConfigError

SCOPE_FILE = Path(__file__).with_name("scope.yaml")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Side(_Frozen):
    summary: str
    items: list[str]
    note: str = ""


class Scope(_Frozen):
    on_topic: Side
    off_topic: Side
    public_labels: dict[str, dict[str, list[str]]]
    #: Messages of nothing but contact details, allowed in code (`guards/guardrail/contact.py`).
    contact_details: ContactDetails
    #: Requests the desk never fulfils, blocked before the model (`guards/guardrail/requests.py`).
    requests: list[Rule] = Field(default_factory=list)
    #: Phrases after which the offline model also reads the rest alone (`guards/guardrail/subject.py`).
    subject_changes: SubjectChanges

    def describe(self) -> str:
        """The scope as prose for a model's instruction."""
        def side(title: str, s: Side) -> str:
            lines = [f"{title}: {s.summary}:", *(f"- {item}" for item in s.items)]
            return "\n".join(lines + ([s.note] if s.note else []))
        return side("On topic", self.on_topic) + "\n\n" + side("Off topic", self.off_topic)


@cache
def scope() -> Scope:
    try:
        return Scope.model_validate(yaml.safe_load(SCOPE_FILE.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValueError) as exc:
        raise ConfigError(f"guardrail scope {SCOPE_FILE.name} is invalid: {exc}") from exc
