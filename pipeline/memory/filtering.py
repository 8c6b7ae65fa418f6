"""The recall filters, applied here and nowhere else, whichever backend found the memories."""

from __future__ import annotations

from collections.abc import Iterable

from pipeline.memory.records import Dropped, Memory, Recall


def filter_recall(found: Iterable[Memory], *, min_score: float, max_chars: int) -> Recall:
    """Keep memories scoring at least `min_score` and at most `max_chars` long, best first.

    A memory failing both tests is reported as `low_score`: it was not relevant, so its length
    did not matter. Nothing is truncated: a cut-off instruction can mean its opposite.
    """
    kept: list[Memory] = []
    dropped: list[Dropped] = []
    for memory in sorted(found, key=lambda m: m.score, reverse=True):
        chars = len(memory.text)
        if memory.score < min_score:
            dropped.append(Dropped(id=memory.id, score=memory.score, chars=chars, why="low_score"))
        elif chars > max_chars:
            dropped.append(Dropped(id=memory.id, score=memory.score, chars=chars, why="too_long"))
        else:
            kept.append(memory)
    return Recall(kept=kept, dropped=dropped)
