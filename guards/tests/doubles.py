"""Test doubles shared by the Judge's tests."""

from __future__ import annotations

from typing import Literal

from guards.schema import Verdict


class ScriptedModel:
    """The Judge's model tier as a test double: `block` for the listed texts, `default` for the rest,
    with `reason` (or "scripted <verdict>"); it records every text that reached it in `seen`."""

    def __init__(self, default: Literal["allow", "block"] = "allow", block: frozenset[str] = frozenset(),
                 reason: str | None = None) -> None:
        self.default, self.block, self.reason, self.seen = default, block, reason, list[str]()

    async def judge(self, text: str) -> Verdict:
        self.seen.append(text)
        verdict: Literal["allow", "block"] = "block" if text in self.block else self.default
        return Verdict(verdict=verdict, reason=self.reason or f"scripted {verdict}", rules=["scripted"], tier="model")
