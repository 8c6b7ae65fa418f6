"""OpenTelemetry traces exported to Arize Phoenix (out of process), one trace per turn.

Spans are batched and exported in the background: a Phoenix that is down costs the turn nothing
(traces are observability, not a guard). With tracing disabled, turns still get trace ids so
run logs and events stay correlatable.

Nothing a customer wrote or was told leaves in a span: OpenInference's trace configuration keeps
prompts and messages off ADK's spans, and `ScrubbingProcessor` (`pipeline/tracescrub.py`) drops
every attribute not on its allow-list before export. Phoenix runs with authentication on; the
exporter sends Phoenix's system token, and only operators (who log in to Phoenix) read traces.
"""

from __future__ import annotations

from openinference.instrumentation import TraceConfig
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, Tracer

from pipeline.core.errors import ConfigError
from pipeline.core.settings import Settings
from pipeline.tracescrub import ScrubbingProcessor


def build_tracer_provider(settings: Settings) -> TracerProvider:
    provider = TracerProvider(resource=Resource.create({
        "service.name": "supportdesk",
        "openinference.project.name": settings.phoenix_project,
    }))
    if settings.tracing_enabled:
        provider.add_span_processor(ScrubbingProcessor(BatchSpanProcessor(_exporter(settings))))
        from openinference.instrumentation.google_adk import GoogleADKInstrumentor

        instrumentor = GoogleADKInstrumentor()
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument(tracer_provider=provider, config=_hidden_content())
    return provider


def _exporter(settings: Settings) -> OTLPSpanExporter:
    if settings.phoenix_admin_secret is None:
        # Phoenix refuses unauthenticated spans: tracing on without the token would drop every one.
        raise ConfigError("TRACING_ENABLED=true but PHOENIX_ADMIN_SECRET is not set",
                          user_message="The support desk is not configured:\n  PHOENIX_ADMIN_SECRET: is required "
                          "when TRACING_ENABLED=true (make up generates one)")
    token = settings.phoenix_admin_secret.get_secret_value()
    return OTLPSpanExporter(endpoint=f"{settings.phoenix_url}/v1/traces", headers={"Authorization": f"Bearer {token}"})


def _hidden_content() -> TraceConfig:
    # Defence in depth under the scrubber: messages, prompts and inputs never reach a span at all.
    # Outputs stay on the in-process span for the scrubber, which turns a tool's output into its
    # row count and drops the rest (an agent's output is the unmasked answer: never exported).
    return TraceConfig(hide_inputs=True, hide_input_messages=True, hide_output_messages=True, hide_input_text=True,
                       hide_output_text=True, hide_prompts=True, hide_choices=True, hide_retrieval_documents=True,
                       hide_llm_invocation_parameters=True, hide_embeddings_text=True, hide_input_images=True)


def tracer_of(provider: TracerProvider) -> Tracer:
    return provider.get_tracer("supportdesk.pipeline")


def trace_id_of(span: Span) -> str:
    return format(span.get_span_context().trace_id, "032x")


def trace_url(settings: Settings, trace_id: str) -> str:
    return f"{settings.phoenix_url}/redirects/traces/{trace_id}"
