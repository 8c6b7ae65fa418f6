"""Rich rendering of a turn's events for `supportdesk chat`: steps with timings, tool calls, outcome.

Answers, reasons and tool arguments are untrusted: they become `Text` (never markup) with
terminal control characters replaced, so nothing a model writes can restyle or move the cursor.
The view holds only what a customer may see of each event (`pipeline.for_customer`): guard
scores, rule ids, memory texts and tool notes never reach the terminal.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from pipeline import ErrorEvent, Event, FinalEvent, StepEvent, ToolEvent, TurnEvent, for_customer

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
STEP_STYLES = {"started": "cyan", "ok": "green", "skipped": "dim", "blocked": "bold red", "failed": "bold red"}
OUTCOME_STYLES = {"answered": "green", "needs_confirmation": "cyan", "blocked": "red", "capped": "yellow",
                  "refused": "yellow", "error": "red"}
#: One-shot exit codes: 0 answered, 2 blocked, 3 capped or refused, 4 a request left unconfirmed
#: (nothing recorded), 1 error.
EXIT_CODES = {"answered": 0, "blocked": 2, "capped": 3, "refused": 3, "needs_confirmation": 4}
EXIT_ERROR = 1
EXIT_UNCONFIRMED = EXIT_CODES["needs_confirmation"]


def printable(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return _CONTROL.sub("\N{REPLACEMENT CHARACTER}", text)


def exit_code(end: FinalEvent | ErrorEvent | None) -> int:
    return EXIT_CODES[end.status] if isinstance(end, FinalEvent) else EXIT_ERROR


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.1f} ms" if value < 10 else f"{value:.0f} ms"


class TurnView:
    """The state of one turn as its events arrive; rich renders it (live while it streams)."""

    def __init__(self) -> None:
        self.turn: TurnEvent | None = None
        self.steps: dict[str, StepEvent] = {}
        self.tools: list[ToolEvent] = []
        self.end: FinalEvent | ErrorEvent | None = None

    def apply(self, event: Event) -> None:
        event = for_customer(event)
        if isinstance(event, TurnEvent):
            self.turn = event
        elif isinstance(event, StepEvent):
            self.steps[event.name] = event
        elif isinstance(event, ToolEvent):
            self.tools.append(event)
        elif isinstance(event, FinalEvent | ErrorEvent):
            self.end = event

    def __rich__(self) -> RenderableType:
        parts: list[RenderableType] = [self._steps()]
        parts += [self._tool(tool) for tool in self.tools]
        if self.end is not None:
            parts.append(self._outcome(self.end))
        return Group(*parts)

    def _steps(self) -> Table:
        table = Table.grid(padding=(0, 2))
        for step in self.steps.values():
            status = "running…" if step.status == "started" else step.status
            reason = step.detail.get("reason") if step.status in ("blocked", "skipped") else None
            table.add_row(Text(step.name), Text(status, style=STEP_STYLES[step.status]),
                          Text(_ms(step.ms), style="dim"), Text(printable(reason or ""), style="dim"))
        return table

    def _tool(self, tool: ToolEvent) -> Text:
        args = ", ".join(f"{key}={printable(value)}" for key, value in tool.args.items())
        rows = "" if tool.row_count is None else f" · {tool.row_count} row{'s' * (tool.row_count != 1)}"
        return Text.assemble(("  ⚙ ", "cyan"), (printable(tool.name), "bold"), f"({args})",
                             (f"  {tool.status} · {_ms(tool.ms)}{rows}", "dim"))

    def _outcome(self, end: FinalEvent | ErrorEvent) -> Panel:
        if isinstance(end, ErrorEvent):
            title = "cancelled" if end.cancelled else f"error in {end.stage}"
            return Panel(Text(printable(end.message)), title=title, border_style="red",
                         subtitle=_ms(end.latency_ms), subtitle_align="right")
        body = Text(printable(end.answer))
        if end.pending is not None:
            body.append(f"\nTo be recorded: {printable(end.pending.summary)}", style="bold")
        if end.reason:  # on an answered turn: the desk's note that a preference was not saved
            body.append(f"\n{'Note' if end.status == 'answered' else 'Reason'}: {printable(end.reason)}", style="dim")
        title = f"blocked by {end.blocked_by}" if end.status == "blocked" and end.blocked_by else end.status
        usage = end.usage
        subtitle = (f"{usage.input_tokens} tokens in · {usage.output_tokens} out · "
                    f"{usage.tool_calls} tool call{'s' * (usage.tool_calls != 1)} · {_ms(end.latency_ms)}")
        return Panel(body, title=title, border_style=OUTCOME_STYLES[end.status], subtitle=subtitle,
                     subtitle_align="right")
