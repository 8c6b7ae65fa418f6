"""Names that close an address: countries and their first-level subdivisions (ISO 3166-1 and -2).

"Suite 694 Valderice Trapani", "Apt. 819 Rzeszów Poland", "Reichenbach Rheinland-Pfalz": a town is
taken into an address only when something that only an address holds comes after it, a postcode or
one of these names. The names come from pycountry (ISO 3166 as maintained by Debian's iso-codes), plus
the local and English country names listed in `address_terms.yaml`.
"""

from __future__ import annotations

import functools
import re

import pycountry

from guards.masker.base import load_terms

# "Cyprus (Greek)": a parenthesised qualifier after a country is part of its name.
_QUALIFIER = re.compile(r"\s*\([^)]*\)\Z")


@functools.cache
def place_names() -> frozenset[str]:
    """Every country and subdivision name, case-folded, with runs of blanks as one space."""
    names = set(load_terms("address_terms.yaml")["countries"])
    for country in pycountry.countries:
        names.update(getattr(country, attr, "") for attr in ("name", "common_name", "official_name"))
    names.update(subdivision.name for subdivision in pycountry.subdivisions)
    return frozenset(_key(n) for n in names if n)


def _key(name: str) -> str:
    return " ".join(name.casefold().split())


def ends_with_place(words: str) -> bool:
    """Whether the last one to four words of `words` (a town run such as "Milford New Zealand")
    name a country or a subdivision."""
    parts = _key(_QUALIFIER.sub("", words)).split(" ")
    names = place_names()
    return any(" ".join(parts[-n:]) in names for n in range(1, min(4, len(parts)) + 1))
