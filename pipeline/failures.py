"""The one place an exception becomes a terminal event. Customers see `user_message` only;
the internal detail goes to the log and the trace."""

from __future__ import annotations

import logging

from pipeline.core.errors import BudgetExceeded, ModelRefused, SupportdeskError
from pipeline.events import ErrorEvent, FinalEvent, StepName, Usage
from pipeline.recorder import TurnRecorder

log = logging.getLogger("supportdesk.pipeline")

GENERIC_MESSAGE = SupportdeskError.user_message
CANCELLED_MESSAGE = "The turn was cancelled before it finished."
REFUSED_ANSWER = "Sorry, I can't help with that request."


def finish_with(recorder: TurnRecorder, exc: BaseException, *, budget_usage: Usage, cancelled: bool = False) -> None:
    """Record the terminal event for a turn that ended by `exc` (nothing if one was recorded)."""
    if recorder.finished:
        return
    where: StepName | None = recorder.failing_step()
    latency = recorder.elapsed_ms()
    if isinstance(exc, BudgetExceeded):
        recorder.record(FinalEvent, status="capped", answer=exc.user_message, reason=f"budget: {exc.budget}",
                        terminated="cap", usage=budget_usage, latency_ms=latency)
        return
    if isinstance(exc, ModelRefused):
        recorder.record(FinalEvent, status="refused", answer=REFUSED_ANSWER, reason="the model refused",
                        usage=budget_usage, latency_ms=latency)
        return
    if cancelled:
        recorder.record(ErrorEvent, stage=where or "pipeline", code=503, message=CANCELLED_MESSAGE, cancelled=True,
                        latency_ms=latency)
        return
    if isinstance(exc, SupportdeskError):
        log.warning("turn %s failed at %s: %s", recorder.turn_id, where, exc.detail)
        recorder.record(ErrorEvent, stage=where or "pipeline", code=exc.code, message=exc.user_message,
                        latency_ms=latency)
        return
    log.error("turn %s failed at %s with an unexpected error", recorder.turn_id, where, exc_info=exc)
    recorder.record(ErrorEvent, stage=where or "pipeline", code=502, message=GENERIC_MESSAGE, latency_ms=latency)
