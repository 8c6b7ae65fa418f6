"""What a span may carry out of the process: an allow-list, applied to every span before export.

Traces are for operators: which steps ran, how long they took, what each guard decided, which
tools were called and how many rows they returned. They are not a second copy of the
conversation, so everything else — prompts, recalled memories, tool arguments and rows, answers,
user and session ids, exception messages and stack traces — is dropped here, whatever
instrumentation (ours, OpenInference's, ADK's own) put it on the span. A new attribute stays out
until someone adds its key below.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from opentelemetry.context import Context
from opentelemetry.sdk.trace import Event, ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import Link, Status
from opentelemetry.util.types import AttributeValue

#: Attributes whose values are names, verdicts, counts or ids we mint — never customer text.
KEPT_ATTRIBUTES = frozenset({
    "openinference.span.kind",
    "agent.name", "gen_ai.agent.name", "gen_ai.operation.name", "gen_ai.workflow.name",
    "tool.name", "gen_ai.tool.name",
    "llm.model_name", "llm.provider", "llm.system",
    "llm.token_count.prompt", "llm.token_count.completion", "llm.token_count.total",
    "supportdesk.turn_id", "supportdesk.outcome", "supportdesk.step.status",
})
#: On events (an exception's): the class name only; its message and stack trace quote the input.
KEPT_EVENT_ATTRIBUTES = frozenset({"exception.type"})
#: Derived here from a tool span's output before the output is dropped.
ROWS = "supportdesk.tool.rows"
TOOL_OUTPUT = "output.value"


def tool_rows(output: AttributeValue | None) -> int | None:
    """The row count a desk tool reported (`{"response": {"row_count": n, ...}}`), if it did."""
    if not isinstance(output, str):
        return None
    try:
        response = json.loads(output).get("response")
    except (ValueError, AttributeError):
        return None
    count = response.get("row_count") if isinstance(response, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def kept_attributes(attributes: Mapping[str, AttributeValue] | None) -> dict[str, AttributeValue]:
    attributes = attributes or {}
    kept = {key: value for key, value in attributes.items() if key in KEPT_ATTRIBUTES}
    rows = tool_rows(attributes.get(TOOL_OUTPUT)) if attributes.get("openinference.span.kind") == "TOOL" else None
    if rows is not None:
        kept[ROWS] = rows
    return kept


def scrubbed(span: ReadableSpan) -> ReadableSpan:
    """A copy of `span` carrying only the allow-listed attributes (names, timings and status kept)."""
    events = [Event(event.name, {k: v for k, v in (event.attributes or {}).items() if k in KEPT_EVENT_ATTRIBUTES},
                    timestamp=event.timestamp) for event in span.events]
    return ReadableSpan(
        name=span.name, context=span.context, parent=span.parent, resource=span.resource,
        attributes=kept_attributes(span.attributes), events=events,
        links=[Link(link.context) for link in span.links], kind=span.kind,
        # The status code stays; its description is the exception's message.
        status=Status(span.status.status_code), start_time=span.start_time, end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope)


class ScrubbingProcessor(SpanProcessor):
    """Hands `next_processor` (the exporting one) a scrubbed copy of every finished span."""

    def __init__(self, next_processor: SpanProcessor) -> None:
        self._next = next_processor

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self._next.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        self._next.on_end(scrubbed(span))

    def shutdown(self) -> None:
        self._next.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._next.force_flush(timeout_millis)
