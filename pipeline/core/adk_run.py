"""How the desk's ADK runners record telemetry: stable GenAI conventions, no message content.

Every span leaves the process through an allow-list (`pipeline/tracescrub.py`) that drops prompts,
answers and tool arguments, whatever put them there. ADK's default (schema v2, experimental GenAI
conventions) still converts every model request — system instruction, tool declarations, history —
into OpenTelemetry values before the span is even checked for recording: ~1.5 ms of the event
loop's CPU per model call here, for attributes nobody may read. Asked for the stable conventions
without content, ADK records its spans as before (names, model, token counts) and builds no content.
Each runner's owner builds its `RunConfig` from this once (`run_config()`): a RunConfig is a mutable
model, so it is not shared at module level; the telemetry config inside it is frozen.
"""

from __future__ import annotations

from google.adk.agents.run_config import RunConfig
from google.adk.telemetry import ContentCapturingMode, TelemetryConfig

TELEMETRY = TelemetryConfig(genai_semconv_stability_opt_in="stable",
                            capture_message_content=ContentCapturingMode.NO_CONTENT)


def run_config() -> RunConfig:
    return RunConfig(telemetry=TELEMETRY)
