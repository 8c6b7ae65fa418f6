"""The memory interface and the checks every backend shares.

`MemoryStore` is what the pipeline sees. `GuardedStore` implements it once for all backends:
it validates the customer id, applies the timeout, turns any backend failure into
`MemoryBackendError` and runs the recall filters (`filtering.filter_recall`). Backends only
implement `_search` and `_add`.

What `save` refuses: a blank `user_id` or a blank `text` (ValueError: the caller's bug). It
stores exactly the text it is given and judges nothing else: deciding what is worth keeping
is `policy.worth_saving`, and giving it only the customer's own words is the caller's duty
(the assistant's text must never reach `save`).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from typing import Protocol, TypeVar

from pipeline.core.errors import MemoryBackendError
from pipeline.memory.filtering import filter_recall
from pipeline.memory.records import Memory, Recall, SaveResult

T = TypeVar("T")


class MemoryStore(Protocol):
    async def recall(self, *, user_id: str, query: str) -> Recall: ...

    async def save(self, *, user_id: str, text: str) -> SaveResult: ...

    async def aclose(self) -> None: ...


class GuardedStore(ABC):
    def __init__(self, *, min_score: float, max_chars: int, top_k: int, timeout_s: float) -> None:
        self._min_score = min_score
        self._max_chars = max_chars
        self._top_k = top_k
        self._timeout_s = timeout_s

    async def recall(self, *, user_id: str, query: str) -> Recall:
        """Memories of this customer relevant to `query`; a blank query recalls nothing."""
        _require("user_id", user_id)
        if not query.strip():
            return Recall()
        found = await self._guard("recall", self._search(user_id=user_id, query=query.strip(), top_k=self._top_k))
        return filter_recall(found, min_score=self._min_score, max_chars=self._max_chars)

    async def save(self, *, user_id: str, text: str) -> SaveResult:
        """Store `text` verbatim as a memory of this customer (see the module docstring)."""
        _require("user_id", user_id)
        _require("text", text)
        return await self._guard("save", self._add(user_id=user_id, text=text))

    @abstractmethod
    async def aclose(self) -> None: ...

    @abstractmethod
    async def _search(self, *, user_id: str, query: str, top_k: int) -> list[Memory]:
        """Up to `top_k` memories of `user_id` nearest to `query`, unfiltered."""

    @abstractmethod
    async def _add(self, *, user_id: str, text: str) -> SaveResult: ...

    async def _guard(self, operation: str, work: Awaitable[T]) -> T:
        # On timeout the caller moves on at once; a backend call already running in a worker
        # thread cannot be interrupted and finishes (or fails) in the background.
        try:
            return await asyncio.wait_for(work, self._timeout_s)
        except MemoryBackendError:
            raise
        except TimeoutError as exc:
            raise MemoryBackendError(f"memory {operation} timed out after {self._timeout_s} s") from exc
        except Exception as exc:  # any backend failure is the same event for the pipeline
            raise MemoryBackendError(f"memory {operation} failed: {type(exc).__name__}: {exc}") from exc


def _require(name: str, value: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"memory {name} must be a non-empty string")
