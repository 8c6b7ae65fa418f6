"""An in-memory shop behind three ADK tools shaped exactly like the desk's Toolbox tools.

Same names, model-visible parameters and `{"rows": [...], "row_count": n}` results as the real
tools, with the customer's e-mail bound by the test (the model never sees it), so the offline
model can be driven through a real ADK `Runner` without PostgreSQL: by the model tests and by
`evals/benchmarks/bench_models.py`, which is why it lives here and not among the tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from google.adk.agents.llm_agent import ToolUnion
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from pipeline.agent.policy import ACTIONS

#: The shop both use: one customer's orders, and another's they must never see.
SHOP_FILE = Path(__file__).with_name("fake_shop.yaml")
Result = dict[str, Any]
_STR = types.Schema(type=types.Type.STRING)


class ShopTool(BaseTool):
    def __init__(self, name: str, params: dict[str, types.Schema], run: Callable[..., Result]) -> None:
        super().__init__(name=name, description=f"Test stand-in for the Toolbox tool {name}.")
        self._params = params
        self._run = run

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name, description=self.description,
            parameters=types.Schema(type=types.Type.OBJECT, properties=self._params,
                                    required=list(self._params)),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Result:
        return self._run(**args)


class FakeShop:
    def __init__(self, orders: dict[str, list[dict[str, Any]]], customer: str) -> None:
        self.orders = orders
        self.customer = customer
        self.actions: list[tuple[str, str, str]] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []

    @classmethod
    def from_yaml(cls, path: Path) -> FakeShop:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return cls(data["orders"], data["customer"])

    def _own(self) -> list[dict[str, Any]]:
        return sorted(self.orders.get(self.customer, []), key=lambda o: o["order_date"], reverse=True)

    def find_customer_orders(self) -> Result:
        self.calls.append(("find-customer-orders", {}))
        rows = self._own()
        return {"rows": rows, "row_count": len(rows)}

    def get_order_status(self, order_id: str) -> Result:
        self.calls.append(("get-order-status", {"order_id": order_id}))
        rows = [o for o in self._own() if o["order_id"] == order_id]
        return {"rows": rows, "row_count": len(rows)}

    def action_log(self, order_id: str, action: str, note: str, items: str, new_item: str, new_address: str) -> Result:
        """Like the desk's write tool: a proposal (`pipeline.agent.actions`), never a write."""
        self.calls.append(("action-log", {"order_id": order_id, "action": action, "note": note, "items": items,
                                          "new_item": new_item, "new_address": new_address}))
        if not any(o["order_id"] == order_id for o in self._own()):
            return {"rows": [], "row_count": 0}
        self.actions.append((order_id, action, note))
        row = {"order_id": order_id, "action": action, "proposed": True, "needs_confirmation": True,
               **({"items": json.loads(items)} if items else {}), **({"new_item": new_item} if new_item else {}),
               **({"new_address": new_address} if new_address else {})}
        return {"rows": [row], "row_count": 1}

    def tools(self) -> list[ToolUnion]:
        """The tools as an `LlmAgent` takes them."""
        return [*self.shop_tools()]

    def shop_tools(self) -> list[ShopTool]:
        action = types.Schema(type=types.Type.STRING, enum=list(ACTIONS))
        return [
            ShopTool("get-order-status", {"order_id": _STR}, self.get_order_status),
            ShopTool("find-customer-orders", {}, self.find_customer_orders),
            ShopTool("action-log", {"order_id": _STR, "action": action, "note": _STR, "items": _STR, "new_item": _STR,
                                    "new_address": _STR}, self.action_log),
        ]
