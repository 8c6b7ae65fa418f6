"""The offline support model through a real ADK Runner with the real Toolbox and PostgreSQL.

Cases: `cases/toolbox_cases.yaml`. Tool calls are observed through the desk's own tool scope,
with the customer's e-mail bound the way the pipeline binds it.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from google.adk.agents import LlmAgent
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from db.connect import connection
from db.seed import SEED_FILE
from guards.classifier.embedders import E5Embedder
from pipeline.agent.actions import collecting_proposals
from pipeline.agent.tools import desk_tools
from pipeline.core.settings import Settings
from pipeline.models.offline_support import OfflineSupportLlm
from pipeline.models.prompts import SUPPORT_INSTRUCTION
from toolbox.client import ToolboxGateway
from toolbox.scope import ToolScope, bound_to

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "toolbox_cases.yaml").read_text(encoding="utf-8"))


class CallRecorder:
    def __init__(self) -> None:
        self.calls: list[list[Any]] = []

    def before_call(self, name: str, args: dict[str, Any]) -> None:
        self.calls.append([name, {k: v for k, v in args.items() if k != "customer_email"}])

    def after_call(self, name: str, args: dict[str, Any], *, ok: bool, ms: float, row_count: int | None,
                   error: str | None) -> None:
        assert ok, error


async def _orders(gateway: ToolboxGateway, email: str) -> list[dict[str, Any]]:
    with bound_to(ToolScope(customer_email=email, turn_id=uuid.uuid4().hex)):
        return (await gateway.call("find-customer-orders")).rows


@pytest.fixture(scope="module")
async def world(gateway: ToolboxGateway) -> dict[str, Any]:
    customers = yaml.safe_load(SEED_FILE.read_text(encoding="utf-8"))["customers"]
    own, other = customers[0]["email"], customers[1]["email"]
    rows = {"own": await _orders(gateway, own), "other": await _orders(gateway, other)}
    names: dict[str, str] = {}
    for side, orders in rows.items():
        for k, row in enumerate(orders):
            names[f"{side}_{k}"] = row["order_id"]
            names[f"{side}_{k}_digits"] = row["order_id"].removeprefix("ORD-").lower()
    return {"email": own, "rows": rows, "names": names}


def _fill(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**names)
    if isinstance(value, list):
        return [_fill(v, names) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, names) for k, v in value.items()}
    return value


def _row(world: dict[str, Any], ref: str) -> dict[str, Any]:
    side, k = ref.split("_")
    row: dict[str, Any] = world["rows"][side][int(k)]
    return row


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_offline_model_with_toolbox(case: dict[str, Any], world: dict[str, Any], gateway: ToolboxGateway,
                                          e5: E5Embedder, desk_settings: Settings) -> None:
    case = _fill(case, world["names"])
    agent = LlmAgent(name="support", model=OfflineSupportLlm.build(e5), instruction=SUPPORT_INSTRUCTION,
                     tools=[*desk_tools(gateway)])
    sessions = InMemorySessionService()
    runner = Runner(app_name="models-toolbox", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="models-toolbox", user_id="customer")
    recorder = CallRecorder()
    message = types.Content(role="user", parts=[types.Part(text=case["message"])])
    with (bound_to(ToolScope(customer_email=world["email"], turn_id=uuid.uuid4().hex, observer=recorder)),
          collecting_proposals()):
        events = [e async for e in runner.run_async(user_id="customer", session_id=session.id, new_message=message)]
    assert recorder.calls == case["calls"]
    final = [e.content for e in events if e.is_final_response() and e.content and e.content.parts]
    assert len(final) == 1
    answer = "".join(p.text or "" for p in final[0].parts or [])
    for text in case.get("contains", []):
        assert text in answer
    if "items_of" in case:
        row = _row(world, case["items_of"])
        assert row["order_id"] in answer and all(item["name"] in answer for item in row["items"])
    if "excludes_address_of" in case:
        assert _row(world, case["excludes_address_of"])["delivery_address"] not in answer
    if "logged" in case:
        logged = case["logged"]
        async with connection(desk_settings) as conn:
            count = await conn.fetchval(
                "SELECT count(*) FROM actions_log WHERE order_id = $1 AND action = $2 AND payload->>'note' = $3",
                _row(world, logged["order"])["order_id"], logged["action"], logged["note"])
        assert count == logged["count"]
