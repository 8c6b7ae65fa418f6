"""OpenTelemetry traces exported to Arize Phoenix (out of process), one trace per turn.

Spans are batched and exported in the background: a Phoenix that is down costs the turn nothing
(traces are observability, not a guard). With tracing disabled, turns still get trace ids so
run logs and events stay correlatable.
"""

from __future__ import annotations

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, Tracer

from pipeline.settings import Settings


def build_tracer_provider(settings: Settings) -> TracerProvider:
    provider = TracerProvider(resource=Resource.create({
        "service.name": "supportdesk",
        "openinference.project.name": settings.phoenix_project,
    }))
    if settings.tracing_enabled:
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{settings.phoenix_url}/v1/traces")))
        from openinference.instrumentation.google_adk import GoogleADKInstrumentor

        instrumentor = GoogleADKInstrumentor()
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument(tracer_provider=provider)
    return provider


def tracer_of(provider: TracerProvider) -> Tracer:
    return provider.get_tracer("supportdesk.pipeline")


def trace_id_of(span: Span) -> str:
    return format(span.get_span_context().trace_id, "032x")


def trace_url(settings: Settings, trace_id: str) -> str:
    return f"{settings.phoenix_url}/redirects/traces/{trace_id}"
