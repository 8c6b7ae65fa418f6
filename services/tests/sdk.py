"""a2a-sdk's own client at the guards under test (the caller itself is `evals/a2a_caller.py`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from a2a.types.a2a_pb2 import AgentCard
from pydantic import BaseModel

from evals.a2a_caller import MESSAGE_ID, fetch_card, sdk_send
from guards.proof import PROOF_FIELD
from services.tests.fixtures import GuardEndpoint

ModelT = TypeVar("ModelT", bound=BaseModel)


class RecordingHttp(httpx.AsyncClient):
    """An httpx client that remembers the JSON-RPC method of every POST it sends."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(event_hooks={"request": [self._record]}, trust_env=False, **kwargs)
        self.methods: list[str] = []

    async def _record(self, request: httpx.Request) -> None:
        if request.method == "POST":
            self.methods.append(json.loads(request.content)["method"])


@asynccontextmanager
async def sdk_http(headers: dict[str, str] | None = None) -> AsyncIterator[RecordingHttp]:
    async with RecordingHttp(headers=headers or {}, timeout=10.0) as http:
        yield http


def only_version(card: AgentCard, version: str) -> AgentCard:
    """The card as a client that speaks only protocol `version` would use it."""
    narrowed = AgentCard()
    narrowed.CopyFrom(card)
    del narrowed.supported_interfaces[:]
    narrowed.supported_interfaces.extend(i for i in card.supported_interfaces if i.protocol_version == version)
    return narrowed


@dataclass(frozen=True)
class SdkGuard:
    """The SDK's client at one guard: the recording HTTP client, the guard's card, the guard."""

    http: RecordingHttp
    card: AgentCard
    guard: GuardEndpoint


@asynccontextmanager
async def sdk_guard(guard: GuardEndpoint) -> AsyncIterator[SdkGuard]:
    """The SDK's client (with the guard's bearer) pointed at `guard`, its card already fetched."""
    async with sdk_http(guard.auth) as http:
        yield SdkGuard(http, await fetch_card(http, guard.url), guard)


def verified(guard: GuardEndpoint, text: str, data: dict[str, Any], model: type[ModelT]) -> ModelT:
    """`data` validated as `model`, after checking the guard's proof for `text` (message MESSAGE_ID)."""
    fields = dict(data)
    result = model.model_validate({k: v for k, v in fields.items() if k != PROOF_FIELD})
    signed = result.model_dump(mode="json", exclude_none=True)
    assert guard.keys.verify(fields.get(PROOF_FIELD), guard.name, MESSAGE_ID, text, signed)
    return result


async def sdk_reply(sdk: SdkGuard, text: str, model: type[ModelT]) -> ModelT:
    """Send `text` with the SDK's client; return its one data part, proof checked, as `model`."""
    data = await sdk_send(sdk.http, sdk.card, text)
    return verified(sdk.guard, text, data[0], model)
