"""Data Masker detection: `Masker(types).mask(text)` → `MaskResult` with input offsets in code points."""

from guards.masker.masker import DEFAULT_PHONE_REGIONS, SUPPORTED_TYPES, Masker

__all__ = ["DEFAULT_PHONE_REGIONS", "SUPPORTED_TYPES", "Masker"]
