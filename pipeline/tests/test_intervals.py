"""Wilson intervals: hand-worked values, and agreement with statsmodels' reference implementation."""

from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from pipeline.core.intervals import interval, wilson

GRID = sorted({(hits, n) for n in (1, 2, 3, 5, 10, 24, 50, 133, 184, 1000)
               for hits in (0, 1, n // 3, n // 2, n - 1, n) if 0 <= hits <= n})


@pytest.mark.parametrize(("hits", "n"), GRID)
def test_wilson_matches_statsmodels(hits: int, n: int) -> None:
    low, high = proportion_confint(hits, n, alpha=0.05, method="wilson")
    assert wilson(hits, n) == pytest.approx((low, high), abs=1e-12)


# Worked by hand from the closed form with z = 1.95996 (z² = 3.84146):
#   centre = (p + z²/2n) / (1 + z²/n), half = z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)
#   0/2:  high = z² / (n + z²) = 3.84146 / 5.84146 = 0.65762
#   9/10: centre 1.09207 / 1.38415 = 0.78898, half 1.41600 · 0.136396 = 0.19314 → 0.59584 – 0.98212
#   1/5:  centre 0.58415 / 1.76829 = 0.33035, half 1.10839 · 0.265358 = 0.29412 → 0.03622 – 0.62447
@pytest.mark.parametrize(("hits", "n", "low", "high"), [
    (0, 2, 0.0, 0.65762), (2, 2, 0.34238, 1.0), (9, 10, 0.59584, 0.98212), (1, 5, 0.03622, 0.62447),
])
def test_wilson_by_hand(hits: int, n: int, low: float, high: float) -> None:
    found = interval(hits, n)
    assert (found.n, found.hits, found.rate) == (n, hits, hits / n)
    # The hand figures carry five digits; the summary keeps six.
    assert (found.low, found.high) == (pytest.approx(low, abs=1e-5), pytest.approx(high, abs=1e-5))


def test_a_stored_bound_prints_as_the_exact_bound_does() -> None:
    # 36/40: low 0.769480…; four stored digits (0.7695) printed 77.0 %, the exact value 76.9 %.
    low, _ = wilson(36, 40)
    assert f"{interval(36, 40).low:.1%}" == f"{low:.1%}" == "76.9%"


def test_no_cases_no_interval() -> None:
    assert interval(0, 0).model_dump() == {"n": 0, "hits": 0, "rate": None, "low": None, "high": None}


@pytest.mark.parametrize(("hits", "n"), [(-1, 3), (4, 3), (0, 0)])
def test_wilson_rejects_impossible_counts(hits: int, n: int) -> None:
    with pytest.raises(ValueError, match="wilson needs"):
        wilson(hits, n)
