"""One turn, in this order, every time: sanitizer → judge → guardrail → recall → agent → masker → save.

The Judge works alone for its first few ms (`judge_head_start_s`), long enough for its rules:
a turn they block starts nothing else. Then, during the rest of its round trip, the memory search,
the Guardrail and the agent's preparation start. Offline, the Guardrail and the agent read the
same e5 model as the Judge, whose answer brings the vector of a message its model read: they wait
for it instead of embedding the message again (`pipeline.clients.guards.JudgeClient`), so the
core the Judge's model leaves idle runs the memory search. Whatever ran early is read in chain
order: the Guardrail's verdict only after the Judge allowed, the memories only after both guards
allowed and the Judge screened them; a blocked turn discards it unseen. Every turn ends in
`pipeline.endings`: an outcome here (answered, blocked), a failure in the desk's `finish_with` —
a guard that cannot answer never means "allow".

Memories are untrusted (`pipeline.memory.screening`): recalled ones are screened by the policy and
the Judge before the agent sees them, and a preference is screened by the Judge before it is
saved. A Judge failure during recall screening ends the turn with an `error` event at the recall
step, like a memory backend failure there (fail closed: no unscreened memory reaches the prompt,
and answering without the memories would silently ignore the customer's standing preferences).
A Judge failure during the save screening saves nothing and the answered turn says the save
failed, like a memory backend failure there (the answer itself is already screened and masked).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.trace import Tracer

from guards.sanitizer import sanitize
from guards.schema import Verdict
from pipeline.agent.actions import collecting_proposals
from pipeline.budget import TurnBudget
from pipeline.confirm import Confirmation, pending_card
from pipeline.core.errors import GuardUnavailable, MemoryBackendError, ModelRefused
from pipeline.core.settings import Settings
from pipeline.endings import Ending, answered, blocked, end_turn, judge_answer
from pipeline.events import StepName, ToolEvent
from pipeline.guardrail import GuardrailResult
from pipeline.memory.policy import worth_saving
from pipeline.memory.records import Recall
from pipeline.memory.screening import screen_recall
from pipeline.pending import PendingSigner, ProposedAction
from pipeline.ports import DeskServices
from pipeline.recorder import TurnRecorder
from toolbox.scope import ToolScope, bound_to


@dataclass
class StepTimer:
    started: float = field(default_factory=time.perf_counter)
    outcome: tuple[str, dict[str, Any]] | None = None
    #: The step's own duration when its work ran before the step was entered (the Guardrail).
    took_ms: float | None = None

    @property
    def ms(self) -> float:
        return self.took_ms if self.took_ms is not None else (time.perf_counter() - self.started) * 1000

    def end(self, status: str, **detail: Any) -> None:
        self.outcome = (status, detail)


class ToolCallObserver:
    """The Toolbox scope's observer for one turn (`toolbox.scope.ToolObserver`): the budget may
    refuse a call before it runs; every call that ran becomes a `tool` event."""

    def __init__(self, budget: TurnBudget, recorder: TurnRecorder) -> None:
        self._budget = budget
        self._recorder = recorder

    def before_call(self, name: str, args: dict[str, Any]) -> None:
        self._budget.add_tool_call(name, args)

    def after_call(self, name: str, args: dict[str, Any], *, ok: bool, ms: float, row_count: int | None,
                   error: str | None) -> None:
        self._recorder.record(ToolEvent, name=name, args=args, status="ok" if ok else "failed",
                              ms=round(ms, 3), row_count=row_count)


class Turn:
    """The work of one turn; `run` records every event through the recorder."""

    def __init__(self, services: DeskServices, settings: Settings, tracer: Tracer, recorder: TurnRecorder,
                 email: str, signer: PendingSigner | None = None) -> None:
        self.services = services
        self.signer = signer
        self.settings = settings
        self.tracer = tracer
        self.recorder = recorder
        self.email = email
        self.budget = TurnBudget(max_tools=settings.t_bud_tools, max_tokens=settings.t_bud_tokens,
                                 loop_window=settings.loop_window)
        self.tool_observer = ToolCallObserver(self.budget, recorder)

    @contextmanager
    def step(self, name: StepName) -> Iterator[StepTimer]:
        timer = StepTimer()
        self.recorder.step(name, "started")
        with self.tracer.start_as_current_span(f"step.{name}") as span:
            try:
                yield timer
            except BaseException as exc:
                self.recorder.step(name, "failed", ms=timer.ms, error=type(exc).__name__)
                span.set_attribute("supportdesk.step.status", "failed")
                raise
            status, detail = timer.outcome or ("ok", {})
            span.set_attribute("supportdesk.step.status", status)
            self.recorder.step(name, status, ms=timer.ms, **detail)

    def _end(self, ending: Ending) -> None:
        end_turn(self.recorder, ending, self.budget.usage)

    async def run(self, text: str, pending: str | None = None) -> None:
        with self.step("sanitizer") as timer:
            cleaned = sanitize(text, max_chars=self.settings.max_message_chars,
                               max_bytes=self.settings.max_message_bytes)
            changes = [change.model_dump() for change in cleaned.changes]
            timer.end("blocked" if cleaned.rejected else "ok", changes=changes, reason=cleaned.reason)
        if cleaned.rejected:
            self._end(blocked("sanitizer", cleaned.reason or "message rejected", cleaned.reason))
            return
        message = cleaned.text
        judge = asyncio.create_task(self._judge(message))
        started: list[asyncio.Task[Any]] = [judge]
        try:
            # The Judge's rules answer within a few ms; only a message its model must read keeps it
            # longer. Until then nothing else starts: a turn the rules block (every attack flood's)
            # costs no embedding in this process, and nothing shares the cores.
            await asyncio.wait([judge], timeout=self.settings.judge_head_start_s)
            # The customer's reply to a pending action (pipeline/confirm.py); None-like without a signer.
            confirmation = Confirmation.read(self.signer, pending, message, self.email)
            # The memory search reads only this customer's memories, and nothing it found is used
            # before both guards allow and the Judge has screened it. A reply that settles a pending
            # action recalls nothing.
            search = None if confirmation.settles else asyncio.create_task(self._timed_search(message))
            if search is not None:
                started.append(search)
            guardrail = asyncio.create_task(self._timed_guardrail(message))
            # The agent's own early work on the message (the offline model embeds it, or takes the
            # Judge's vector); nothing it does is seen unless every guard allows.
            prepared = asyncio.create_task(self.services.agent.prepare(message))
            started += [guardrail, prepared]
            await self._guarded(message, confirmation, judge, guardrail, prepared, search)
        finally:
            await _discard(*started)

    async def _guarded(self, message: str, confirmation: Confirmation, judge: asyncio.Task[str | None],
                       guardrail: asyncio.Task[tuple[GuardrailResult, float]], prepared: asyncio.Task[None],
                       search: asyncio.Task[tuple[Recall, float]] | None) -> None:
        judged = await judge
        if judged is not None:
            self.recorder.step("recall", "skipped", reason="turn blocked")
            self._end(blocked("judge", judged, judge_answer(message)))
            return
        off_topic = await self._guardrail(guardrail)
        # Whatever Guardrail is plugged in, a bare "yes"/"no" is let through as the exact word
        # answering a pending action this desk signed for this very customer (ours allows it anyway).
        if off_topic is not None and not confirmation.verified:
            self.recorder.step("recall", "skipped", reason="turn blocked")
            self._end(blocked("guardrail", off_topic))
            return
        if search is None:
            self.recorder.step("recall", "skipped", reason="the reply settles a pending action")
        else:
            with self.step("recall") as timer:
                found, recall_ms = await search
                screening = time.perf_counter()
                memories = await screen_recall(found, self.services.judge)
                screen_ms = (time.perf_counter() - screening) * 1000
                timer.end("ok", recall_ms=round(recall_ms, 3), screen_ms=round(screen_ms, 3),
                          kept=[m.model_dump() for m in memories.kept],
                          dropped=[d.model_dump() for d in memories.dropped])
        if confirmation.settles:
            answer, proposal = await self._settle(confirmation), None
        else:
            answer, proposal = await self._answer(message, [m.text for m in memories.kept], prepared)
        with self.step("masker") as timer:
            masked = await self.services.masker.mask(answer)
            card = await pending_card(self.signer, self.services.masker, self.email, proposal)
            timer.end("ok", redactions=[r.type for r in masked.redactions])
        save_failed = await self._save(message)
        self._end(answered(masked.text, pending=card, save_failed=save_failed))

    async def _settle(self, confirmation: Confirmation) -> str:
        """Answer a pending action: on a verified yes, write exactly what was signed."""
        with self.step("agent") as timer, bound_to(ToolScope(self.email, self.recorder.turn_id, self.tool_observer)):
            answer = await confirmation.settle(self.services.actions)
            timer.end("ok", confirmation=confirmation.outcome, tool_calls=self.budget.usage.tool_calls)
        return answer

    async def _timed_search(self, message: str) -> tuple[Recall, float]:
        """This customer's memories for `message`, unscreened; with the search's ms."""
        started = time.perf_counter()
        found = await self.services.memory.recall(user_id=self.email, query=message)
        return found, (time.perf_counter() - started) * 1000

    async def _judge(self, message: str) -> str | None:
        """The Judge's reason when it blocks, else None."""
        with self.step("judge") as timer:
            verdict = await self.services.judge.screen(message)
            timer.end(_status(verdict), **verdict.model_dump())
        return verdict.reason if verdict.verdict == "block" else None

    async def _timed_guardrail(self, message: str) -> tuple[GuardrailResult, float]:
        started = time.perf_counter()
        checked = await self.services.guardrail.check(message)
        return checked, (time.perf_counter() - started) * 1000

    async def _guardrail(self, check: asyncio.Task[tuple[GuardrailResult, float]]) -> str | None:
        """The Guardrail's reason when the message is off-topic, else None (its work already started)."""
        with self.step("guardrail") as timer:
            checked, timer.took_ms = await check
            self.budget.add_tokens(input_tokens=checked.input_tokens, output_tokens=checked.output_tokens)
            timer.end(_status(checked.verdict), **checked.verdict.model_dump())
        return checked.verdict.reason if checked.verdict.verdict == "block" else None

    async def _answer(self, message: str, memories: list[str],
                      prepared: asyncio.Task[None]) -> tuple[str, ProposedAction | None]:
        """The agent's answer, and the write it proposed (nothing is written in this turn)."""
        answer = ""
        with (self.step("agent") as timer, bound_to(ToolScope(self.email, self.recorder.turn_id, self.tool_observer)),
              collecting_proposals() as proposals):
            await prepared
            async for event in self.services.agent.run(self.email, message, memories):
                if event.usage_metadata:
                    self.budget.add_tokens(input_tokens=event.usage_metadata.prompt_token_count or 0,
                                           output_tokens=event.usage_metadata.candidates_token_count or 0)
                if event.is_final_response() and event.content and event.content.parts:
                    answer += "".join(p.text or "" for p in event.content.parts if not p.thought)
            if not answer.strip():
                raise ModelRefused("the model gave no answer")
            timer.end("ok", tool_calls=self.budget.usage.tool_calls, chars=len(answer), proposed=len(proposals))
        return answer, (proposals[0] if proposals else None)

    async def _save(self, message: str) -> bool:
        """Save the customer's own words when they carry a standing preference; True if that failed."""
        if not worth_saving(message):
            self.recorder.step("save", "skipped", reason="no standing preference in the message")
            return False
        try:
            with self.step("save") as timer:
                verdict = await self.services.judge.screen(message)
                if verdict.verdict == "block":
                    timer.end("blocked", reason="the Security Judge blocked the text as a memory",
                              judge=verdict.model_dump())
                    return False
                result = await self.services.memory.save(user_id=self.email, text=message)
                timer.end("ok", saved=result.model_dump(), judge=verdict.model_dump())
        except (MemoryBackendError, GuardUnavailable):
            # The answer stands; the final event says the save failed (never a silent loss).
            return True
        return False


def _status(verdict: Verdict) -> str:
    return "blocked" if verdict.verdict == "block" else "ok"


async def _discard(*tasks: asyncio.Task[Any]) -> None:
    """Stop tasks whose results are no longer wanted, and collect their outcomes (nothing goes
    unretrieved). All are cancelled before the first wait, so none that has not started starts."""
    for task in tasks:
        if not task.done():
            task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
