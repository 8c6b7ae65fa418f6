"""Fixed-window rate limits counted in PostgreSQL, so every worker process shares one count.

One statement per hit: the upsert serialises concurrent hits on the row, so N simultaneous
requests see the counts 1..N and exactly `limit` of them pass. Windows are aligned to the
database clock (not each worker's).

The table stays bounded: every row carries the end of its window, and every hit also deletes up
to `SWEEP_PER_HIT` rows whose window has ended, of any bucket. A hit adds at most one row and
removes up to two stale ones, so stale rows never pile up — not even from buckets named after
random emails, which are never hit again to sweep themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import asyncpg

SWEEP_PER_HIT = 2

# SKIP LOCKED: concurrent hits sweep different stale rows instead of queueing on the same ones.
# The sweep compares with now() (the statement's start), not clock_timestamp(): a volatile
# function cannot drive the index, and the scan would then read every live row on every hit.
_HIT = f"""
WITH w AS (SELECT to_timestamp(floor(extract(epoch FROM clock_timestamp()) / $2) * $2) AS start),
swept AS (DELETE FROM rate_limit_hits WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM rate_limit_hits WHERE expires_at < now()
    ORDER BY expires_at LIMIT {SWEEP_PER_HIT} FOR UPDATE SKIP LOCKED)))
INSERT INTO rate_limit_hits (bucket, window_start, expires_at, hits)
SELECT $1, w.start, w.start + make_interval(secs => $2), 1 FROM w
ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
RETURNING hits, window_start, extract(epoch FROM window_start - clock_timestamp()) + $2 AS left_s
"""

# A refund takes back one hit; the row goes when its count would reach zero (hits > 0 is a constraint).
_REFUND = """
WITH gone AS (DELETE FROM rate_limit_hits WHERE bucket = $1 AND window_start = $2 AND hits = 1)
UPDATE rate_limit_hits SET hits = hits - 1 WHERE bucket = $1 AND window_start = $2 AND hits > 1
"""


@dataclass(frozen=True)
class Hit:
    bucket: str
    window_start: datetime
    allowed: bool
    retry_after_s: int


class RateLimiter:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def hit(self, bucket: str, *, limit: int, window_s: int) -> Hit:
        row = await self._pool.fetchrow(_HIT, bucket, float(window_s))
        assert row is not None  # an upsert with RETURNING always returns its row
        return Hit(bucket=bucket, window_start=row["window_start"], allowed=row["hits"] <= limit,
                   retry_after_s=max(1, math.ceil(row["left_s"])))

    async def refund(self, hit: Hit) -> None:
        await self._pool.execute(_REFUND, hit.bucket, hit.window_start)
