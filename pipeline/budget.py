"""Per-turn budgets, enforced in code on every iteration: wall clock, tool calls, tokens, loops.

`TurnBudget` is the Toolbox scope's observer: it is asked before every tool call (and may refuse
it by raising `BudgetExceeded`) and told after it (it records the `tool` event).
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from pipeline.core.errors import BudgetExceeded
from pipeline.events import ToolEvent, Usage
from pipeline.recorder import TurnRecorder


class TurnBudget:
    def __init__(self, recorder: TurnRecorder, *, max_tools: int, max_tokens: int, loop_window: int) -> None:
        self._recorder = recorder
        self._max_tools = max_tools
        self._max_tokens = max_tokens
        self._recent: deque[str] = deque(maxlen=loop_window)
        self.usage = Usage()

    def before_call(self, name: str, args: dict[str, Any]) -> None:
        signature = name + json.dumps(args, sort_keys=True, default=str)
        if signature in self._recent:
            raise BudgetExceeded(f"loop: {name} repeated with the same arguments", budget="loop")
        if self.usage.tool_calls >= self._max_tools:
            raise BudgetExceeded(f"tool budget of {self._max_tools} calls reached", budget="tools")
        self._recent.append(signature)
        self.usage.tool_calls += 1

    def after_call(self, name: str, args: dict[str, Any], *, ok: bool, ms: float, row_count: int | None,
                   error: str | None) -> None:
        self._recorder.record(ToolEvent, name=name, args=args, status="ok" if ok else "failed",
                              ms=round(ms, 3), row_count=row_count)

    def add_tokens(self, *, input_tokens: int, output_tokens: int) -> None:
        self.usage.input_tokens += input_tokens
        self.usage.output_tokens += output_tokens
        total = self.usage.input_tokens + self.usage.output_tokens
        if total > self._max_tokens:
            raise BudgetExceeded(f"token budget of {self._max_tokens} exceeded ({total})", budget="tokens")
