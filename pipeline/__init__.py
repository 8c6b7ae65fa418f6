"""Supportdesk's turn engine. Front ends use only this public API:

    pipeline = await Pipeline.build(load_settings())
    async for event in pipeline.run_turn(CustomerSession(email), text):
        ...  # TurnEvent, StepEvent, ToolEvent, then FinalEvent or ErrorEvent
    await pipeline.aclose()
"""

from pipeline.desk import CustomerSession, Pipeline
from pipeline.errors import ConfigError, SupportdeskError
from pipeline.events import ErrorEvent, Event, FinalEvent, StepEvent, ToolEvent, TurnEvent, Usage, parse_event
from pipeline.settings import Settings, load_settings
from pipeline.tracing import trace_url

__all__ = [
    "ConfigError", "CustomerSession", "ErrorEvent", "Event", "FinalEvent", "Pipeline", "Settings", "StepEvent",
    "SupportdeskError", "ToolEvent", "TurnEvent", "Usage", "load_settings", "parse_event", "trace_url",
]
