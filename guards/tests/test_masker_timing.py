"""Every Masker detector answers in linear time on any text a guard accepts: a correctness bound.

The detectors' patterns use `re` (possessive quantifiers and look-behinds that RE2 lacks), and the
address tail widens each street with anchored `match` calls, so a single pattern's `search` is not
what runs: each detector's whole `find` is timed, as the Masker calls it. Two checks:
- on the harness's adversarial texts (64 KiB, built from every literal of the detector's patterns),
  `find` stays under `BUDGET_S` of CPU, a bound a backtracking pattern (seconds) cannot meet;
- on texts dense with address-shaped runs, where thousands of streets are found and widened, the
  time for 64 KiB is at most `MAX_GROWTH` times that for 16 KiB: linear is 4, quadratic 16.
"""

from __future__ import annotations

import re
import time

import pytest

from guards.masker import SUPPORTED_TYPES, Masker
from guards.masker.base import Detector, Span
from guards.tests.adversarial import MAX_INPUT_CHARS, slowest_search

BUDGET_S = 0.100
MAX_GROWTH = 8.0
MASKER = Masker(SUPPORTED_TYPES)
DETECTORS = {type(d).__name__: d for d in MASKER._detectors}  # each detector timed alone
# Runs of what the address rules chain together: streets, units with towns, crossings, region codes,
# house names before numbers, second streets, prefix streets, lower-case military mail.
DENSE_UNITS = ["A 1 A St ", "Apt 1 Aaa ", "corner of 1 A St and ", ", AB 1", "\n, ab\n 12345 ", "Aaa 1 Bbb Ccc ",
               "12 Baker Street Kishiev Squares ", "Via Roma 1 ", "psc 1, box 2\napo ae 12345 ", "Lindenring 7/2, "]


def _sources(obj: object) -> list[str]:
    """The source of every pattern a detector holds, its address tail's included."""
    found: list[str] = []
    for value in vars(obj).values():
        if isinstance(value, re.Pattern):
            found.append(value.pattern)
        elif isinstance(value, list):
            found += [p.pattern for p in value if isinstance(p, re.Pattern)]
        elif hasattr(value, "__dict__") and not callable(value) and type(value).__module__.startswith("guards."):
            found += _sources(value)
    return found


def _cpu(detector: Detector, text: str) -> float:
    started = time.thread_time()
    detector.find(text)
    return time.thread_time() - started


def _growth(detector: Detector, whole: str, quarter: str, rounds: int = 5) -> float:
    """CPU for `whole` over CPU for `quarter`, each the best of `rounds` runs taken in turns: this
    machine slows by up to 2x for a few hundred ms at a time, and runs of one text back to back
    could all fall in such a spell while the other text's did not."""
    wholes, quarters = zip(*((_cpu(detector, whole), _cpu(detector, quarter)) for _ in range(rounds)), strict=True)
    return min(wholes) / max(min(quarters), 1e-6)


@pytest.mark.parametrize("name", list(DETECTORS))
def test_every_detector_is_fast_on_adversarial_input(name: str) -> None:
    detector = DETECTORS[name]
    elapsed, text = slowest_search(detector.find, " ".join(_sources(detector)), BUDGET_S)
    assert elapsed <= BUDGET_S, f"{elapsed * 1000:.0f} ms on {text}"


@pytest.mark.parametrize("unit", DENSE_UNITS)
def test_address_time_grows_linearly_with_dense_addresses(unit: str) -> None:
    detector = DETECTORS["AddressDetector"]
    quarter, whole = ((unit * (size // len(unit) + 1))[:size] for size in (MAX_INPUT_CHARS // 4, MAX_INPUT_CHARS))
    growth = _growth(detector, whole, quarter)
    assert growth <= MAX_GROWTH, f"{growth:.1f}x for 4x the text"


class _Quadratic:
    """A detector whose search scans to the end of a run of "a" from every start."""

    type = "X"
    pattern = re.compile(r"a*b")

    def find(self, text: str) -> list[Span]:
        return [Span(self.type, *m.span()) for m in self.pattern.finditer(text)]


def test_the_growth_check_can_fail() -> None:
    text = "a" * (MAX_INPUT_CHARS // 4)
    assert _growth(_Quadratic(), text, text[: len(text) // 4]) > MAX_GROWTH
