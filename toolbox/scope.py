"""Where the customer's email is bound: the per-turn scope every tool call reads.

The pipeline enters `bound_to(ToolScope(...))` for a turn; the Toolbox client resolves
`customer_email` (and the write tool's idempotency key) from here, never from model output.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from pipeline.core.errors import SupportdeskError, ToolboxError


class ToolObserver(Protocol):
    """Hooks the pipeline uses to budget and record tool calls (may raise to stop a call)."""

    def before_call(self, name: str, args: dict[str, Any]) -> None: ...

    def after_call(self, name: str, args: dict[str, Any], *, ok: bool, ms: float, row_count: int | None,
                   error: str | None) -> None: ...


@dataclass(frozen=True)
class ToolScope:
    customer_email: str
    turn_id: str
    observer: ToolObserver | None = None


_scope: ContextVar[ToolScope | None] = ContextVar("toolbox_scope", default=None)
_idempotency_key: ContextVar[str | None] = ContextVar("toolbox_idempotency_key", default=None)


@contextmanager
def bound_to(scope: ToolScope) -> Iterator[ToolScope]:
    if not scope.customer_email:
        raise ValueError("a tool scope needs the session's customer email")
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


def current_scope() -> ToolScope:
    scope = _scope.get()
    if scope is None:
        # Fail closed: a tool call outside a logged-in turn must not run with any email.
        raise ToolboxError("tool called outside a bound customer session")
    return scope


@dataclass
class ObservedCall:
    """Filled in by the caller: the rows the call returned."""

    row_count: int | None = None
    started: float = field(default_factory=time.perf_counter)


@contextmanager
def observed_call(name: str, args: dict[str, Any]) -> Iterator[ObservedCall]:
    """One tool call as the bound turn's observer sees it: asked first (it may refuse by raising),
    then told how the call ended, whether it returned or raised."""
    observer = current_scope().observer
    if observer is not None:
        observer.before_call(name, args)
    call = ObservedCall()
    try:
        yield call
    except Exception as exc:
        if observer is not None:
            observer.after_call(name, args, ok=False, ms=(time.perf_counter() - call.started) * 1000,
                                row_count=None,
                                error=exc.detail if isinstance(exc, SupportdeskError) else type(exc).__name__)
        raise
    if observer is not None:
        observer.after_call(name, args, ok=True, ms=(time.perf_counter() - call.started) * 1000,
                            row_count=call.row_count, error=None)


def session_email() -> str:
    return current_scope().customer_email


@contextmanager
def idempotency_key(key: str) -> Iterator[None]:
    token = _idempotency_key.set(key)
    try:
        yield
    finally:
        _idempotency_key.reset(token)


def current_idempotency_key() -> str:
    key = _idempotency_key.get()
    if key is None:
        raise ToolboxError("write tool called without an idempotency key")
    return key
