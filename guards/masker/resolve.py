"""Turning raw detections into the redactions of one text.

Overlap rule, deterministic: a validated type (checksum or unambiguous shape) beats a heuristic one
(`HEURISTIC`); among validated types the one first in `PRIORITY` wins; among heuristic types, and
within one type, the longer detection wins, then the one first in `PRIORITY`, then the earlier. A losing
detection is dropped whole, never trimmed, so a redaction always covers what one detector matched.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from guards.masker.base import HEURISTIC, PRIORITY, Span
from guards.schema import MaskResult, Redaction

_RANK = {name: rank for rank, name in enumerate(PRIORITY)}


def _precedence(span: Span) -> tuple[bool, int, int, int, int]:
    """Sort key: the span that should win an overlap sorts first."""
    heuristic = span.type in HEURISTIC
    rank = _RANK[span.type]
    return (heuristic, 0 if heuristic else rank, span.start - span.end, rank, span.start)


def resolve(spans: Iterable[Span]) -> list[Span]:
    """Non-overlapping, non-empty spans sorted by start, chosen by the overlap rule above."""
    kept: list[Span] = []  # sorted by start and pairwise disjoint, so one neighbour check suffices
    for span in sorted(spans, key=_precedence):
        if span.end <= span.start:
            continue
        at = bisect_left(kept, (span.start,), key=lambda s: (s.start,))
        if at > 0 and kept[at - 1].end > span.start:
            continue
        if at < len(kept) and kept[at].start < span.end:
            continue
        kept.insert(at, span)
    return kept


def apply(text: str, spans: list[Span]) -> MaskResult:
    """Replace each span by its placeholder; every character outside the spans is copied as is."""
    pieces: list[str] = []
    cursor = 0
    for span in spans:
        pieces += (text[cursor : span.start], f"[{span.type}]")
        cursor = span.end
    pieces.append(text[cursor:])
    return MaskResult(
        text="".join(pieces),
        redactions=[Redaction(type=s.type, start=s.start, end=s.end) for s in spans],
    )
