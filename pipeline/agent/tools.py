"""The Toolbox tools as ADK tools: the model sees only the unbound parameters.

Results reach the model as `{"rows": [...], "row_count": n}`; failures raise and end the turn.

The write tool's idempotency key says what the write means: this customer, this order, this
action, this UTC day. Not the turn: a customer who repeats a request after a turn that failed
(say the Masker timed out after the insert landed) gets "already recorded", not a second row. Not
the note: the model words it, and a reworded note — in the same turn or the next — is the same
request. The cost, accepted: a second, different delivery instruction for the same order on the
same UTC day is answered "already recorded today" and not added (the customer is told so); a
repeat that straddles 00:00 UTC lands in the next day's window.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from pipeline.errors import ToolboxError
from toolbox.client import ToolboxGateway
from toolbox.scope import current_scope, idempotency_key

WRITE_TOOLS = frozenset({"action-log"})
WRITE_UNKNOWN = ("We could not confirm whether your request was recorded. If you ask again today, it is "
                 "recorded at most once: if it already was, we will tell you so.")
_TYPES = {"string": types.Type.STRING, "integer": types.Type.INTEGER, "number": types.Type.NUMBER,
          "boolean": types.Type.BOOLEAN}


def derive_idempotency_key(email: str, tool: str, args: dict[str, Any], *, now: datetime | None = None) -> str:
    """One key per customer, order, action and UTC day; the note does not take part (see above)."""
    day = (now or datetime.now(UTC)).astimezone(UTC).date().isoformat()
    order_id = str(args.get("order_id", "")).strip().upper()
    action = str(args.get("action", "")).strip().lower()
    meaning = "\x1f".join(("v2", tool, email.strip().casefold(), order_id, action, day))
    return hashlib.sha256(meaning.encode()).hexdigest()[:48]


class DeskTool(BaseTool):
    def __init__(self, gateway: ToolboxGateway, name: str) -> None:
        super().__init__(name=name, description=gateway.description(name))
        self._gateway = gateway
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
        if self.name not in WRITE_TOOLS:
            return (await self._gateway.call(self.name, **call_args)).for_model()
        key = derive_idempotency_key(current_scope().customer_email, self.name, call_args)
        try:
            with idempotency_key(key):
                return (await self._gateway.call(self.name, **call_args)).for_model()
        except ToolboxError as exc:
            raise type(exc)(exc.detail, user_message=WRITE_UNKNOWN) from exc


def desk_tools(gateway: ToolboxGateway) -> list[BaseTool | BaseToolset]:
    """One ADK tool per Toolbox tool of the loaded toolset (call `await gateway.load()` first)."""
    return [DeskTool(gateway, name) for name in sorted(gateway.tool_names)]
