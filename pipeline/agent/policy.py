"""The action policy: which order statuses allow which request (`action_policy.yaml`)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict

Action = Literal["delivery_instruction", "return_request", "cancel_request", "exchange_request", "address_change"]
ACTIONS: tuple[Action, ...] = get_args(Action)
#: Kinds that may name some items of an order instead of all of it.
PARTIAL_ACTIONS = frozenset({"return_request", "cancel_request", "exchange_request"})
POLICY_FILE = Path(__file__).with_name("action_policy.yaml")


class ActionRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    allowed: tuple[str, ...]
    refused: str


class ActionPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    actions: dict[Action, ActionRule]

    def allows(self, action: str, status: str) -> bool:
        rule = self.actions.get(action)  # type: ignore[call-overload]
        return rule is not None and status in rule.allowed

    def refusal(self, action: str, status: str) -> str:
        """Why `action` is not possible for an order in `status`, in the customer's terms."""
        rule = self.actions.get(action)  # type: ignore[call-overload]
        return rule.refused.format(status=status) if rule else "That request is not something this desk records."

    def allowed_statuses(self, action: str) -> tuple[str, ...]:
        rule = self.actions.get(action)  # type: ignore[call-overload]
        return rule.allowed if rule else ()


@cache
def load_policy(path: Path = POLICY_FILE) -> ActionPolicy:
    policy = ActionPolicy.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    if set(policy.actions) != set(ACTIONS):
        raise ValueError(f"{path} must have a rule for each of {ACTIONS}")
    return policy
