"""What `settle_heap` leaves behind: start-up objects frozen, start-up garbage collected first."""

from __future__ import annotations

import gc
import weakref

from pipeline.core.heap import settle_heap


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_garbage_is_collected_before_the_rest_is_frozen() -> None:
    kept, cycle = _Node(), _Node()
    cycle.other, cycle.other.other = _Node(), cycle  # unreachable once `cycle` is dropped
    gone = weakref.ref(cycle)
    del cycle
    settle_heap()
    try:
        assert gone() is None, "a garbage cycle was frozen instead of collected"
        assert gc.get_freeze_count() > 0 and gc.is_tracked(kept)
    finally:
        # Unfreezes everything, also what a desk built earlier in this session froze: later tests
        # then pay for fuller collections, never for objects they expect collected staying frozen.
        gc.unfreeze()
