"""The Data Masker: finds PII of the configured types and replaces each span with `[TYPE]`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from guards.masker.address import AddressDetector
from guards.masker.base import PRIORITY, Detector, Span
from guards.masker.checksummed import CardDetector, IbanDetector, SsnDetector
from guards.masker.names import NameDetector
from guards.masker.network import EmailDetector, IpDetector
from guards.masker.phone import PhoneDetector
from guards.masker.resolve import apply, resolve
from guards.schema import MaskResult
from pipeline.core.settings import DEFAULT_PHONE_REGIONS

SUPPORTED_TYPES: tuple[str, ...] = PRIORITY


class Masker:
    """Masks the PII `types` (names from `SUPPORTED_TYPES`) in support-desk text.

    Every detector runs whatever is configured, so a span claimed by an unconfigured type (a card
    number while CARD is off) is left alone rather than re-read as, say, a phone number. The one
    exception is NAME, optional and looked for only when configured: a name lost to no other type.
    """

    def __init__(self, types: Iterable[str], *, phone_regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> None:
        self._types = frozenset(types)
        unknown = sorted(self._types - set(SUPPORTED_TYPES))
        if unknown:
            raise ValueError(f"unknown PII types {unknown}; supported: {list(SUPPORTED_TYPES)}")
        self._detectors: tuple[Detector, ...] = (
            EmailDetector(),
            IbanDetector(),
            CardDetector(),
            SsnDetector(),
            IpDetector(),
            PhoneDetector(phone_regions),
            AddressDetector(),
            *([NameDetector()] if "NAME" in self._types else []),
        )

    @property
    def types(self) -> frozenset[str]:
        return self._types

    def mask(self, text: str) -> MaskResult:
        found: list[Span] = []
        for detector in self._detectors:
            found += detector.find(text)
        return apply(text, [span for span in resolve(found) if span.type in self._types])
