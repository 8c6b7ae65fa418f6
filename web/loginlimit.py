"""Which limits a login attempt counts against, reserved before its password is checked.

- From a browser that logged in to this email before (`web/devices.py`): that device's own bucket
  only. Strangers' guesses at the email, from any address, cannot lock its owner out of it.
- Otherwise: the client's address first, then the email. A refused address stops there, so one
  address spraying random emails adds no rows for them: the limit table stays bounded by the
  number of addresses, not of emails tried. An IPv6 address counts as its /64, the block one
  host is usually given, so a client cannot rotate through its own block for fresh budgets.

Each reservation is a hit; a successful login gives its hits back (only failures count).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from web.ratelimit import Hit, RateLimiter

IPV6_PREFIX = 64


def address_bucket(address: str) -> str:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:  # not an IP (a Unix socket, say): its name is all there is
        return f"login:address:{address}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d is that IPv4 client
            return f"login:address:{ip.ipv4_mapped}"
        return f"login:address:{ipaddress.ip_network(f'{ip}/{IPV6_PREFIX}', strict=False)}"
    return f"login:address:{ip}"


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
        buckets = [f"login:device:{device}"] if device else [address_bucket(address), f"login:email:{email}"]
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
