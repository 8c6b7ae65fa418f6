"""The Toolbox tools as ADK tools: the model sees only the unbound parameters.

Results reach the model as `{"rows": [...], "row_count": n}`; failures raise and end the turn.

The write tool never writes from here: the model's call becomes a proposal the customer must
confirm (`pipeline.agent.actions`), and the write runs only on their yes, keyed by
`derive_idempotency_key`. The key says what the write means: this customer, this order, this
action (these items, when only some), this UTC day. Not the turn: a customer who confirms again
after a turn that failed (say the Masker timed out after the insert landed) gets "already
recorded", not a second row. Not the note: the model words it, and a reworded note is the same
request. The cost, accepted: a second, different delivery instruction for the same order on the
same UTC day is answered "already recorded today" and not added (the customer is told so); a
repeat that straddles 00:00 UTC lands in the next day's window.
"""

from __future__ import annotations

from typing import Any

from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from pipeline.agent.actions import WRITE_TOOL, WRITE_UNKNOWN, ActionDesk, derive_idempotency_key
from toolbox.client import ToolboxGateway

__all__ = ["WRITE_UNKNOWN", "DeskTool", "derive_idempotency_key", "desk_tools"]
_TYPES = {"string": types.Type.STRING, "integer": types.Type.INTEGER, "number": types.Type.NUMBER,
          "boolean": types.Type.BOOLEAN}


class DeskTool(BaseTool):
    def __init__(self, gateway: ToolboxGateway, name: str, actions: ActionDesk) -> None:
        super().__init__(name=name, description=gateway.description(name))
        self._gateway = gateway
        self._actions = actions
        params = gateway.model_params(name)
        # Built once: ADK asks for the declaration on every model request.
        self._declaration = types.FunctionDeclaration(
            name=self.name, description=self.description,
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={p.name: types.Schema(type=_TYPES.get(p.type, types.Type.STRING), description=p.description)
                            for p in params},
                required=[p.name for p in params if p.required]))
        self._allowed = frozenset(p.name for p in params)

    def _get_declaration(self) -> types.FunctionDeclaration:
        return self._declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> dict[str, Any]:
        # Only declared parameters go through: an email the model invents is dropped, not forwarded.
        call_args = {k: v for k, v in args.items() if k in self._allowed}
        if self.name == WRITE_TOOL:
            return await self._actions.propose(call_args)
        return (await self._gateway.call(self.name, **call_args)).for_model()


def desk_tools(gateway: ToolboxGateway, actions: ActionDesk | None = None) -> list[BaseTool | BaseToolset]:
    """One ADK tool per Toolbox tool of the loaded toolset (call `await gateway.load()` first)."""
    actions = actions or ActionDesk(gateway)
    return [DeskTool(gateway, name, actions) for name in sorted(gateway.tool_names)]
