"""Adversarial texts of a guard's maximum input size, and the slowest search each one causes.

A backtracking pattern is slow on texts that almost match it many times over: long runs of one
character, of one of the pattern's own words, or a word followed by a long run (the issue's
`"a" * 60000 + " @"`). The texts are built from each pattern's own literals, so a new pattern gets
its own adversaries without anyone writing them. A search is timed in CPU time of this thread
(other processes on a shared machine do not count), and only one over the budget is repeated
(best of three), so a busy machine does not fail a linear pattern.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

#: The largest request a guard accepts (GUARD_MAX_BODY_BYTES); no text it reads is longer.
MAX_INPUT_CHARS = 64 * 1024
_FILLERS = ("a", " ", "\n", "0", ".", "@", "-", "/", ":", "{", "<", "[", "'", "é", "x1 ")
_WORDS = re.compile(r"[a-z][a-z'’-]{1,}")
_LITERAL_CHARS = re.compile(r"(?<!\\)[^\w\s\\()|?*+{}^$]")

Search = Callable[[str], object]


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def adversarial_texts(pattern: str, size: int = MAX_INPUT_CHARS) -> Iterator[tuple[str, str]]:
    """(label, text) pairs of `size` characters aimed at `pattern`."""
    fillers = set(_FILLERS) | set(_LITERAL_CHARS.findall(pattern))
    for filler in sorted(fillers):
        yield f"run {filler!r}", _repeat(filler, size)
        yield f"run {filler!r} then ' @'", _repeat(filler, size - 2) + " @"
        yield f"run 'a{filler}'", _repeat("a" + filler, size)
    for word in sorted(set(_WORDS.findall(pattern.lower())))[:60]:
        yield f"{word!r} repeated", _repeat(word + " ", size)
        for filler in ("a", " ", "."):
            yield f"{word!r} then a run of {filler!r}", (word + " " + _repeat(filler, size))[:size]


def slowest_search(search: Search, pattern: str, budget_s: float,
                   size: int = MAX_INPUT_CHARS) -> tuple[float, str]:
    """The longest time `search` took on one of `pattern`'s adversarial texts, and which text."""
    worst = (0.0, "")
    for label, text in adversarial_texts(pattern, size):
        elapsed = _timed(search, text)
        if elapsed > budget_s:  # retried: one slow run may be the machine, three are the pattern
            elapsed = min(elapsed, *(_timed(search, text) for _ in range(2)))
        worst = max(worst, (elapsed, label))
    return worst


def _timed(search: Search, text: str) -> float:
    started = time.thread_time()
    search(text)
    return time.thread_time() - started
