"""Collect a whole event stream, for tests that check a finished turn."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pipeline.events import Event


async def drain(events: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in events]
