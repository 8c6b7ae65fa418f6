"""Which limits a login attempt counts against, reserved before its password is checked.

- From a browser that logged in to this email before (`web/devices.py`): that device's own bucket
  only. Strangers' guesses at the email, from any address, cannot lock its owner out of it.
- Otherwise: the client's address first, then the email. A refused address stops there, so one
  address spraying random emails adds no rows for them: the limit table stays bounded by the
  number of addresses, not of emails tried.

Each reservation is a hit; a successful login gives its hits back (only failures count).
"""

from __future__ import annotations

from dataclasses import dataclass

from web.ratelimit import Hit, RateLimiter


@dataclass(frozen=True)
class Reservation:
    hits: tuple[Hit, ...]
    #: Seconds until a refused attempt may be tried again; None when the attempt may go ahead.
    retry_after_s: int | None


class LoginLimits:
    def __init__(self, limiter: RateLimiter, *, max_attempts: int, window_s: int) -> None:
        self._limiter = limiter
        self._max = max_attempts
        self._window_s = window_s

    async def reserve(self, *, address: str, email: str, device: str | None) -> Reservation:
        buckets = [f"login:device:{device}"] if device else [f"login:address:{address}", f"login:email:{email}"]
        hits: list[Hit] = []
        for bucket in buckets:
            hit = await self._limiter.hit(bucket, limit=self._max, window_s=self._window_s)
            hits.append(hit)
            if not hit.allowed:
                return Reservation(tuple(hits), hit.retry_after_s)
        return Reservation(tuple(hits), None)

    async def give_back(self, reservation: Reservation) -> None:
        for hit in reservation.hits:
            await self._limiter.refund(hit)
