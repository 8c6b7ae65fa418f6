"""The pipeline's client of the Security Judge service."""

from __future__ import annotations

from guards.schema import Verdict
from pipeline.clients.channel import GuardClient


class JudgeClient(GuardClient):
    """`JudgeClient(settings, http=None)`, built once per process.

    `screen` returns the service's validated verdict or raises `GuardUnavailable` (timeout:
    `GuardTimeout`, unreadable answer: `GuardProtocolError`) — it never allows on failure.
    """

    guard = "judge"

    async def screen(self, text: str) -> Verdict:
        return await self._channel.send(text, Verdict)
