"""The one place a turn's terminal event is made, from how the turn came out.

A turn that ran to its end is `answered` (or `needs_confirmation`); one a guard stopped is
`blocked`; one that raised ends as `ending_for` maps its exception: `final` capped or refused, or
`error` (the tree in `pipeline/core/errors.py` says which exception ends how). The event carries only
what a customer may read — the answer or the exception's `user_message`; its `detail` goes to the
log and the trace.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from guards.classifier.embedders import EMBED_CHARS
from pipeline.core.errors import BudgetExceeded, ModelRefused, SupportdeskError
from pipeline.events import ErrorEvent, FinalEvent, PendingCard, StepName, Usage
from pipeline.recorder import TurnRecorder

log = logging.getLogger("supportdesk.pipeline")

BLOCKED_ANSWERS: dict[StepName, str] = {
    # The sanitizer's own reason is the answer; this stands in only if it ever gives none.
    "sanitizer": "Sorry, we could not read that message. Please retype it.",
    "judge": "Sorry, I can't help with that message. It was stopped by our security check.",
    # The written scope's topics (guards/guardrail/scope.yaml), and a way back for a customer the
    # Guardrail refused wrongly: a message naming its order reads as the shop's.
    "guardrail": "I can only help with your orders here: status and tracking, delivery and addresses, "
                 "returns, exchanges and cancellations, refunds and how you paid. If your question is "
                 "about an order, please ask it again with the order number.",
}
#: The Judge also stops about one honest customer in fifty (25 of the 1,351 customers, up to 600
#: characters, in the `dev` halves of the probe files and batch 24: complaints about the chat, a
#: password reset, a terse "order … status pls";
#: evals/JOURNAL.md, "Which customers the Judge refuses"). Its answer gives them the way back the
#: Guardrail's gives, and tells an attacker nothing about the check.
WAY_BACK = ("If you need help with one of your orders, please ask again in a few words, with the order number "
            "if there is one.")
#: A message the Judge stops that is longer than its offline model reads at once (`EMBED_CHARS`) is
#: most often a pasted e-mail or document, and most customers who send one are honest; the Judge's
#: long reader still refuses about one in six of them (`test` halves: batch 21 9 of 40, batch 22
#: 9 of 59, batch 23 10 of 77; DESIGN.md, "Customers who paste a long document"). The answer then
#: says how to be read. It tells an attacker nothing the length limit does not.
PASTED_ADVICE = ("If you pasted an e-mail or a document, please ask your question again in a few words "
                 "of your own, with the order number if there is one.")
GENERIC_MESSAGE = SupportdeskError.user_message
CANCELLED_MESSAGE = "The turn was cancelled before it finished."
REFUSED_ANSWER = "Sorry, I can't help with that request."
SAVE_FAILED_NOTE = "Your preference could not be saved; please mention it again next time."


@dataclass(frozen=True)
class Ending:
    """A terminal event before the recorder stamps it: its type and the fields a customer may see
    (`end_turn` adds the usage and the latency)."""

    kind: Literal["final", "error"]
    fields: dict[str, Any]


def answered(answer: str, *, pending: PendingCard | None, save_failed: bool) -> Ending:
    """The masked answer; with a card, the request waits for the customer's yes."""
    return Ending("final", {"status": "needs_confirmation" if pending else "answered", "answer": answer,
                            "pending": pending, "reason": SAVE_FAILED_NOTE if save_failed else None})


def judge_answer(message: str) -> str:
    """The Judge's refusal of `message`, with the way back (for a long one, that of a pasted document)."""
    return f"{BLOCKED_ANSWERS['judge']} {PASTED_ADVICE if len(message) > EMBED_CHARS else WAY_BACK}"


def blocked(by: StepName, reason: str, answer: str | None = None) -> Ending:
    return Ending("final", {"status": "blocked", "answer": answer or BLOCKED_ANSWERS[by], "blocked_by": by,
                            "reason": reason})


def ending_for(exc: BaseException, *, where: StepName | None = None, cancelled: bool = False) -> Ending:
    """How a turn that raised `exc` in step `where` ends: the one mapping of errors to events."""
    stage = where or "pipeline"
    if isinstance(exc, BudgetExceeded):
        return Ending("final", {"status": "capped", "answer": exc.user_message, "reason": f"budget: {exc.budget}",
                                "terminated": "cap"})
    if isinstance(exc, ModelRefused):
        return Ending("final", {"status": "refused", "answer": REFUSED_ANSWER, "reason": "the model refused"})
    if cancelled:
        return Ending("error", {"stage": stage, "code": 503, "message": CANCELLED_MESSAGE, "cancelled": True})
    if isinstance(exc, SupportdeskError):
        return Ending("error", {"stage": stage, "code": exc.code, "message": exc.user_message})
    return Ending("error", {"stage": stage, "code": 502, "message": GENERIC_MESSAGE})


def end_turn(recorder: TurnRecorder, ending: Ending, usage: Usage) -> FinalEvent | ErrorEvent:
    """Record the turn's terminal event (the recorder refuses any event after it)."""
    latency = recorder.elapsed_ms()
    if ending.kind == "final":
        return recorder.record(FinalEvent, usage=usage.model_copy(), latency_ms=latency, **ending.fields)
    return recorder.record(ErrorEvent, latency_ms=latency, **ending.fields)


def finish_with(recorder: TurnRecorder, exc: BaseException, *, usage: Usage, cancelled: bool = False) -> None:
    """End a turn that raised `exc` (nothing if it already ended); unexpected errors are logged."""
    if recorder.finished:
        return
    where = recorder.failing_step()
    ending = ending_for(exc, where=where, cancelled=cancelled)
    if ending.kind == "error" and not cancelled:
        if isinstance(exc, SupportdeskError):
            log.warning("turn %s failed at %s: %s", recorder.turn_id, where, exc.detail)
        else:
            log.error("turn %s failed at %s with an unexpected error", recorder.turn_id, where, exc_info=exc)
    end_turn(recorder, ending, usage)
