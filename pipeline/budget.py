"""Per-turn budgets, enforced in code on every iteration: wall clock, tool calls, tokens, loops.

`TurnBudget` only counts and refuses (by raising `BudgetExceeded`); the turn's `ToolCallObserver`
(`pipeline/turn.py`) asks it before every tool call and records the `tool` event after it. The
wall clock is enforced around the whole turn (`pipeline/desk.py`).
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from pipeline.core.errors import BudgetExceeded
from pipeline.events import Usage


class TurnBudget:
    def __init__(self, *, max_tools: int, max_tokens: int, loop_window: int) -> None:
        self._max_tools = max_tools
        self._max_tokens = max_tokens
        self._recent: deque[str] = deque(maxlen=loop_window)
        self.usage = Usage()

    def add_tool_call(self, name: str, args: dict[str, Any]) -> None:
        """Count a tool call about to run; raises if it repeats a recent one or is one too many."""
        signature = name + json.dumps(args, sort_keys=True, default=str)
        if signature in self._recent:
            raise BudgetExceeded(f"loop: {name} repeated with the same arguments", budget="loop")
        if self.usage.tool_calls >= self._max_tools:
            raise BudgetExceeded(f"tool budget of {self._max_tools} calls reached", budget="tools")
        self._recent.append(signature)
        self.usage.tool_calls += 1

    def add_tokens(self, *, input_tokens: int, output_tokens: int) -> None:
        self.usage.input_tokens += input_tokens
        self.usage.output_tokens += output_tokens
        total = self.usage.input_tokens + self.usage.output_tokens
        if total > self._max_tokens:
            raise BudgetExceeded(f"token budget of {self._max_tokens} exceeded ({total})", budget="tokens")
