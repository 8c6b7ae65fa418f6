"""The pipeline's clients of the two guard services, the Security Judge and the Data Masker."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Protocol

import aiohttp

from guards.schema import JudgeReply, MaskResult, Reading, Verdict
from pipeline.clients.channel import GuardClient
from pipeline.core.errors import GuardProtocolError
from pipeline.core.settings import Settings


class ReadingSink(Protocol):
    """The process's embedder (`guards.classifier.embedders.E5Embedder`)."""

    def awaiting(self, text: str) -> AbstractContextManager[None]: ...

    def take(self, text: str, reading: Reading) -> bool: ...


class JudgeClient(GuardClient):
    """`JudgeClient(settings, http=None, readings=None)`, built once per process.

    `screen` returns the service's validated verdict or raises `GuardUnavailable` (timeout:
    `GuardTimeout`, unreadable answer: `GuardProtocolError`) — it never allows on failure.
    A reply's `Reading` (the message's vector, signed with the verdict) goes to `readings`, the
    process's embedder, so the Guardrail and the agent find the message already embedded; while
    the call is in flight, they wait for it there instead of embedding the message themselves.
    """

    guard = "judge"

    def __init__(self, settings: Settings, *, http: aiohttp.ClientSession | None = None,
                 readings: ReadingSink | None = None) -> None:
        super().__init__(settings, http=http)
        self._readings = readings

    async def screen(self, text: str) -> Verdict:
        readings = self._readings
        with nullcontext() if readings is None else readings.awaiting(text):
            reply = await self._channel.send(text, JudgeReply)
            if reply.reading is not None and readings is not None:
                try:
                    readings.take(text, reply.reading)
                except ValueError as exc:
                    raise GuardProtocolError(f"judge: unreadable reading ({exc})", guard=self.guard) from exc
        return Verdict.model_validate(reply.model_dump(exclude={"reading"}))


class MaskerClient(GuardClient):
    """`MaskerClient(settings, http=None)`, built once per process.

    `mask` returns the validated masked text or raises `GuardUnavailable` (timeout:
    `GuardTimeout`, unreadable answer: `GuardProtocolError`) — it never passes text through.
    """

    guard = "masker"

    async def mask(self, text: str) -> MaskResult:
        return await self._channel.send(text, MaskResult)
