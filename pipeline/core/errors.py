"""The desk's exception family: one tree, one root, and how a turn that raises each one ends.

`pipeline.endings.ending_for` is the one place an exception becomes a turn's terminal event; the
middle column is what it makes of each (`pipeline/tests/test_endings.py` checks it):

    SupportdeskError               error 502        root; never shown to a customer as-is
    ├── ConfigError                error 503        settings missing/invalid, provider cannot be built
    ├── ServiceStartError          error 503        a desk process (guard, web, Phoenix) did not start
    ├── GuardUnavailable           error 503        a guard (Judge, Masker, Guardrail) gave no usable verdict
    │   ├── GuardTimeout           error 504        ... because it did not answer within its timeout
    │   └── GuardProtocolError     error 502        ... because its answer did not validate
    ├── ToolboxError               error 502        the MCP Toolbox boundary
    │   ├── ToolboxUnavailable     error 503        Toolbox unreachable or timed out
    │   └── ToolResultError        error 502        the tool ran but reported an error (e.g. SQL error text)
    ├── DatabaseError              error 503        PostgreSQL unreachable or a statement failed
    ├── MemoryBackendError         error 503        Mem0 (embedded or cloud) failed to recall or save
    ├── ModelError                 error 502        the language model boundary
    │   ├── ModelUnavailable       error 503        provider unreachable, timed out, retries exhausted
    │   └── ModelRefused           final refused    provider refused (safety block, filter, empty answer)
    └── BudgetExceeded             final capped     a per-turn budget (wall, tools, tokens, loop) was hit

`error 5xx` is an `error` event with that `code` and the exception's `user_message`; `final capped`
answers with `BudgetExceeded.user_message`, `final refused` with a fixed apology. Every error
carries `detail` (internal: logs and traces only) and `user_message` (safe to show).
Outside the tree: any other exception ends `error 502` with the root's message; a cancelled turn
`error 503` with `cancelled: true`; the wall-clock budget running out ends as `BudgetExceeded`.
Handled inside the turn instead: `GuardUnavailable` or `MemoryBackendError` while saving a
preference leaves the turn `final answered`, with a note that the preference was not saved.
"""

from __future__ import annotations


class SupportdeskError(Exception):
    """Root of the desk's errors. `detail` is internal; `user_message` may be shown to a customer."""

    user_message = "Something went wrong on our side. Please try again in a moment."
    #: HTTP-like status used by the `error` event: 502 dependency failed, 503 unavailable, 504 timeout.
    code = 502

    def __init__(self, detail: str = "", *, user_message: str | None = None) -> None:
        super().__init__(detail or self.__class__.__name__)
        self.detail = detail or self.__class__.__name__
        if user_message is not None:
            self.user_message = user_message


class ConfigError(SupportdeskError):
    user_message = "The support desk is not configured correctly."
    code = 503


class ServiceStartError(SupportdeskError):
    user_message = "Part of the support desk did not start."
    code = 503


class GuardUnavailable(SupportdeskError):
    user_message = "A safety check is unavailable right now, so we stopped before answering."
    code = 503

    def __init__(self, detail: str = "", *, guard: str = "guard", user_message: str | None = None) -> None:
        super().__init__(detail, user_message=user_message)
        self.guard = guard


class GuardTimeout(GuardUnavailable):
    user_message = "A safety check took too long, so we stopped before answering."
    code = 504


class GuardProtocolError(GuardUnavailable):
    user_message = "A safety check gave an answer we could not read, so we stopped before answering."
    code = 502


class ToolboxError(SupportdeskError):
    user_message = "We could not reach the order system. Please try again in a moment."


class ToolboxUnavailable(ToolboxError):
    code = 503


class ToolResultError(ToolboxError):
    code = 502


class DatabaseError(SupportdeskError):
    user_message = "The order database is unavailable right now. Please try again in a moment."
    code = 503


class MemoryBackendError(SupportdeskError):
    user_message = "Our memory service is unavailable right now. Please try again in a moment."
    code = 503


class ModelError(SupportdeskError):
    user_message = "The assistant is unavailable right now. Please try again in a moment."


class ModelUnavailable(ModelError):
    code = 503


class ModelRefused(ModelError):
    user_message = "The assistant could not answer that request."
    code = 502


class BudgetExceeded(SupportdeskError):
    user_message = "That request needed more work than one turn allows. Please ask in smaller steps."
    code = 502

    def __init__(self, detail: str = "", *, budget: str) -> None:
        super().__init__(detail)
        self.budget = budget
