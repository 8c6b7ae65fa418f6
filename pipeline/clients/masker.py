"""The pipeline's client of the Data Masker service."""

from __future__ import annotations

from guards.schema import MaskResult
from pipeline.clients.channel import GuardClient


class MaskerClient(GuardClient):
    """`MaskerClient(settings, http=None)`, built once per process.

    `mask` returns the validated masked text or raises `GuardUnavailable` (timeout:
    `GuardTimeout`, unreadable answer: `GuardProtocolError`) — it never passes text through.
    """

    guard = "masker"

    async def mask(self, text: str) -> MaskResult:
        return await self._channel.send(text, MaskResult)
