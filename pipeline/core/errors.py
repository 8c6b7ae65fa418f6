"""The desk's exception family: one tree, one root, one place that maps it to events.

    SupportdeskError                 root; never shown to a customer as-is
    ├── ConfigError                  settings missing/invalid, provider cannot be built (start-up)
    ├── ServiceStartError            a desk process (guard, web, Phoenix) did not become healthy at start
    ├── GuardUnavailable             a guard (Judge, Masker, Guardrail) gave no usable verdict
    │   ├── GuardTimeout             ... because it did not answer within its timeout
    │   └── GuardProtocolError       ... because its answer did not validate (garbage, JSON-RPC error)
    ├── ToolboxError                 the MCP Toolbox boundary
    │   ├── ToolboxUnavailable       Toolbox unreachable or timed out
    │   └── ToolResultError          the tool ran but reported an error (e.g. SQL error text)
    ├── DatabaseError                PostgreSQL unreachable or a statement failed
    ├── MemoryBackendError           Mem0 (embedded or cloud) failed to recall or save
    ├── ModelError                   the language model boundary
    │   ├── ModelUnavailable         provider unreachable, timed out, retries exhausted
    │   └── ModelRefused             provider refused (safety block, content filter, empty answer)
    └── BudgetExceeded               a per-turn budget (wall, tools, tokens, loop) was hit

Every error carries `detail` (internal: logs and traces only) and `user_message` (safe to show).
`pipeline.failures.error_event` is the single place an exception becomes an `error` event.
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
