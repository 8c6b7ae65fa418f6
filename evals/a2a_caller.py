"""a2a-sdk's own client, as a third-party A2A caller of our guards would use it.

Shared by the guard tests (`services/tests/sdk.py`) and `evals/benchmarks/bench_guards.py`, which
prints its round trip as the reference the pipeline's raw JSON-RPC client is chosen over.
"""

from __future__ import annotations

from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers import get_data_parts
from a2a.types.a2a_pb2 import AgentCard, Message, Part, Role, SendMessageRequest
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH

#: The id of every message `sdk_send` sends (a guard's proof covers it).
MESSAGE_ID = "test-message"


async def fetch_card(http: httpx.AsyncClient, url: str, path: str = AGENT_CARD_WELL_KNOWN_PATH) -> AgentCard:
    return await A2ACardResolver(http, url).get_agent_card(relative_card_path=path)


async def sdk_send(http: httpx.AsyncClient, card: AgentCard, text: str) -> list[Any]:
    """Send `text` with the SDK's client; return the reply's data parts."""
    client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
    request = SendMessageRequest(
        message=Message(message_id=MESSAGE_ID, role=Role.ROLE_USER, parts=[Part(text=text)])
    )
    replies = [reply async for reply in client.send_message(request)]
    if len(replies) != 1 or not replies[0].HasField("message"):
        raise ValueError(f"expected one message in reply, got {replies!r}")
    return get_data_parts(replies[0].message.parts)
