"""How sure a rate is: the 95 % Wilson score interval, and latency percentiles.

Wilson rather than the normal ("Wald") interval because our n are small and our rates sit near
0 or 1, where Wald gives bounds outside [0, 1] or a zero-width interval at 0/n and n/n.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel

#: Two-sided 95 %: the standard normal's 0.975 quantile (scipy.stats.norm.isf(0.025)).
Z_95 = 1.959963984540054
#: Digits kept in the summary. Printed figures round these again (to 0.1 %), so they must be much
#: finer than a printed step: with 4, Gandalf's 36/40 (low 0.76948) was stored as 0.7695 and
#: printed as 77.0 % instead of 76.9 %.
DIGITS = 6


def wilson(hits: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval (low, high) of hits/n; n must be positive."""
    if n <= 0 or not 0 <= hits <= n:
        raise ValueError(f"wilson needs 0 <= hits <= n and n > 0, got hits={hits}, n={n}")
    p = hits / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # Clamp away the rounding error at p = 0 or 1 (the exact bounds are 0 and 1 there).
    return max(0.0, centre - half), min(1.0, centre + half)


class Interval(BaseModel):
    """A share with its evidence: n cases, hits of them, and the 95 % Wilson bounds (None when n is 0)."""

    n: int
    hits: int
    rate: float | None
    low: float | None
    high: float | None


def interval(hits: int, n: int) -> Interval:
    if n == 0:
        return Interval(n=0, hits=0, rate=None, low=None, high=None)
    low, high = wilson(hits, n)
    return Interval(n=n, hits=hits, rate=round(hits / n, DIGITS), low=round(low, DIGITS), high=round(high, DIGITS))


class Percentiles(BaseModel):
    """Latency in ms: n samples and their p50, p95, p99 (numpy's linear interpolation)."""

    n: int
    p50: float | None
    p95: float | None
    p99: float | None


def percentiles(values: Iterable[float]) -> Percentiles:
    data = np.asarray(list(values), dtype=float)
    if data.size == 0:
        return Percentiles(n=0, p50=None, p95=None, p99=None)
    p50, p95, p99 = (round(float(v), 3) for v in np.percentile(data, [50, 95, 99]))
    return Percentiles(n=int(data.size), p50=p50, p95=p95, p99=p99)
