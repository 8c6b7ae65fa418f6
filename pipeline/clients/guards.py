"""The pipeline's clients of the two guard services, the Security Judge and the Data Masker."""

from __future__ import annotations

from guards.schema import MaskResult, Verdict
from pipeline.clients.channel import GuardClient


class JudgeClient(GuardClient):
    """`JudgeClient(settings, http=None)`, built once per process.

    `screen` returns the service's validated verdict or raises `GuardUnavailable` (timeout:
    `GuardTimeout`, unreadable answer: `GuardProtocolError`) — it never allows on failure.
    """

    guard = "judge"

    async def screen(self, text: str) -> Verdict:
        return await self._channel.send(text, Verdict)


class MaskerClient(GuardClient):
    """`MaskerClient(settings, http=None)`, built once per process.

    `mask` returns the validated masked text or raises `GuardUnavailable` (timeout:
    `GuardTimeout`, unreadable answer: `GuardProtocolError`) — it never passes text through.
    """

    guard = "masker"

    async def mask(self, text: str) -> MaskResult:
        return await self._channel.send(text, MaskResult)
