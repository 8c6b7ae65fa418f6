"""`Desk`: the support desk's turn engine and public entry point. Build it once per process, then
call `run_turn` per message.

`run_turn` yields typed events as they happen. The turn's work runs in its own task, so a slow
consumer never stretches the turn's wall-clock budget, and a consumer that stops iterating
cancels the work — the run log is written either way, ending in exactly one terminal event.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.trace import TracerProvider

from pipeline.budget import TurnBudget
from pipeline.core.errors import BudgetExceeded
from pipeline.core.heap import settle_heap
from pipeline.core.settings import Settings, settings_hash
from pipeline.endings import finish_with
from pipeline.events import Event, StepEvent, ToolEvent, TurnEvent
from pipeline.pending import PendingSigner
from pipeline.ports import DeskServices
from pipeline.recorder import TurnRecorder
from pipeline.runlog import RunLog
from pipeline.tracing import build_tracer_provider, trace_id_of, tracer_of
from pipeline.turn import Turn


@dataclass(frozen=True)
class CustomerSession:
    """Who is asking: the logged-in customer. Their email is what every tool call is bound to."""

    email: str

    def __post_init__(self) -> None:
        if not self.email or self.email != self.email.strip().lower():
            raise ValueError("a customer session needs the normalised (lower-case) email")


class Desk:
    def __init__(self, settings: Settings, services: DeskServices, *, tracer_provider: TracerProvider | None = None,
                 runlog: RunLog | None = None) -> None:
        self.settings = settings
        self.services = services
        self.tracer_provider = tracer_provider or build_tracer_provider(settings)
        self._tracer = tracer_of(self.tracer_provider)
        self.runlog = runlog or RunLog(settings.runs_dir, keep=settings.runs_keep,
                                       max_age_days=settings.runs_max_age_days)
        self.runlog.prune()
        self.settings_hash = settings_hash(settings)
        # From a key file, so a pending action signed before a restart can still be confirmed after it.
        self.signer = PendingSigner.from_file(settings.pending_action_key_file, ttl_s=settings.pending_action_ttl_s)

    @classmethod
    async def build(cls, settings: Settings) -> Desk:
        from pipeline.wiring import build_services

        desk = cls(settings, await build_services(settings))
        settle_heap()
        return desk

    async def aclose(self) -> None:
        from pipeline.wiring import close_services

        await close_services(self.services)
        self.tracer_provider.shutdown()

    async def run_turn(self, session: CustomerSession, text: str, pending: str | None = None
                       ) -> AsyncGenerator[Event, None]:
        """`pending`: the token of the last turn's `needs_confirmation`, sent back with the reply."""
        queue: asyncio.Queue[Event] = asyncio.Queue()
        recorder = TurnRecorder(uuid.uuid4().hex, queue.put_nowait)
        worker = asyncio.create_task(self._work(recorder, session, text, pending), name=f"turn-{recorder.turn_id}")
        try:
            while True:
                event = await queue.get()
                yield event
                if event.terminal:
                    return
        finally:
            if not worker.done():
                worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)

    async def _work(self, recorder: TurnRecorder, session: CustomerSession, text: str, pending: str | None) -> None:
        turn = Turn(self.services, self.settings, self._tracer, recorder, session.email, self.signer)
        with self._tracer.start_as_current_span("turn") as span:
            trace_id = trace_id_of(span)
            span.set_attribute("supportdesk.turn_id", recorder.turn_id)
            recorder.record(TurnEvent, trace_id=trace_id, model=self.settings.model_name,
                            started_at=recorder.started_at)
            try:
                async with asyncio.timeout(self.settings.t_bud_wall_s) as wall:
                    await turn.run(text, pending)
            except TimeoutError as exc:
                ended: BaseException = BudgetExceeded("wall-clock budget", budget="wall") if wall.expired() else exc
                finish_with(recorder, ended, usage=turn.budget.usage)
            except asyncio.CancelledError as exc:
                finish_with(recorder, exc, usage=turn.budget.usage, cancelled=True)
                raise
            except Exception as exc:
                span.record_exception(exc)
                finish_with(recorder, exc, usage=turn.budget.usage)
            finally:
                final = recorder.events[-1]
                span.set_attribute("supportdesk.outcome", getattr(final, "status", final.type))
                self.runlog.write(recorder.turn_id, self._record(recorder, session, trace_id, turn.budget))

    def _record(self, recorder: TurnRecorder, session: CustomerSession, trace_id: str,
                budget: TurnBudget) -> dict[str, Any]:
        events = recorder.events
        steps = [e for e in events if isinstance(e, StepEvent) and e.status != "started"]
        return {
            "turn_id": recorder.turn_id,
            "trace_id": trace_id,
            "customer_email": session.email,
            "model": self.settings.model_name,
            "settings_hash": self.settings_hash,
            "started_at": recorder.started_at.isoformat(),
            "outcome": events[-1].model_dump(mode="json"),
            "steps": {e.name: {"status": e.status, "ms": e.ms} for e in steps},
            "verdicts": {e.name: e.detail for e in steps if e.name in ("judge", "guardrail")},
            "tools": [e.model_dump(mode="json") for e in events if isinstance(e, ToolEvent)],
            "usage": budget.usage.model_dump(),
            "events": [e.model_dump(mode="json") for e in events],
        }
