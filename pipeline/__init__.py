"""Supportdesk's turn engine. Front ends use only this public API:

    desk = await Desk.build(load_settings())
    async for event in desk.run_turn(CustomerSession(email), text):
        ...  # TurnEvent, StepEvent, ToolEvent, then FinalEvent or ErrorEvent
        show(for_customer(event))  # what a customer may see of it (`pipeline/redact.py`)
    await desk.aclose()

Names load on first use: every layer imports the kernel (`pipeline.core`), and importing it must
not load the turn engine (which imports `guards`, itself a user of the kernel).
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "CustomerSession": "pipeline.desk", "Desk": "pipeline.desk",
    "ConfigError": "pipeline.core.errors", "SupportdeskError": "pipeline.core.errors",
    "ErrorEvent": "pipeline.events", "Event": "pipeline.events", "FinalEvent": "pipeline.events",
    "StepEvent": "pipeline.events", "ToolEvent": "pipeline.events", "TurnEvent": "pipeline.events",
    "Usage": "pipeline.events", "parse_event": "pipeline.events", "for_customer": "pipeline.redact",
    "Settings": "pipeline.core.settings", "load_settings": "pipeline.core.settings",
    "trace_url": "pipeline.tracing", "MAX_TOKEN_CHARS": "pipeline.pending",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
