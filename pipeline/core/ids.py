"""What an order id is: `ORD-` and five digits, the one definition the desk reads.

The database says the same in its CHECK constraint (`db/migrations/0001.schema.sql`, quoted in
`ORDER_ID_SQL_CHECK`); `db/tests/test_migrations.py` holds the two together.
"""

from __future__ import annotations

import re

ORDER_ID_PREFIX = "ORD-"
ORDER_ID_DIGITS = 5
ORDER_ID_SQL_CHECK = f"order_id ~ '^{ORDER_ID_PREFIX}[0-9]{{{ORDER_ID_DIGITS}}}$'"
#: The digits of an id, not part of a longer number (a 6-digit number is not an order id).
DIGITS_PATTERN = rf"(?<!\d)\d{{{ORDER_ID_DIGITS}}}(?!\d)"
#: An id as customers type it: the hyphen is often left out ("ORD10042").
WRITTEN_PATTERN = rf"ORD-?{DIGITS_PATTERN}"
_CANONICAL = re.compile(rf"{re.escape(ORDER_ID_PREFIX)}\d{{{ORDER_ID_DIGITS}}}")


def order_id(digits: str) -> str:
    """The canonical id of an order's digits: "10042" -> "ORD-10042"."""
    candidate = ORDER_ID_PREFIX + digits
    if not _CANONICAL.fullmatch(candidate):
        raise ValueError(f"not the digits of an order id: {digits!r}")
    return candidate
