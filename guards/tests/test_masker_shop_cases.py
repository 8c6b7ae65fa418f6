"""The Data Masker on the shop's dev-split texts (evals/cases/masker/shop_*_dev.yaml, names.yaml).

Each PII value must be covered whole by redactions of its type, and no redaction may reach outside
the values: a street and its town may come back as one span or two, but nothing around them may
change. Test-split cases are left to evals/reports/masker_datasets.py, which only reports them.
"""

from __future__ import annotations

import functools

import pytest

from evals.reports.masker_scoring import Item, shop_items
from guards.masker import SUPPORTED_TYPES, Masker
from pipeline.core.settings import Settings

DESK_TYPES: tuple[str, ...] = Settings.model_fields["masker_types"].default
DEV = [item for item in shop_items(["shop_pii_dev.yaml", "shop_clean_dev.yaml", "names.yaml"]) if item.split == "dev"]


@functools.cache
def masker(types: tuple[str, ...]) -> Masker:
    return Masker(types)


@pytest.mark.parametrize("item", [pytest.param(item, id=item.id) for item in DEV])
def test_each_value_is_masked_whole_and_nothing_else(item: Item) -> None:
    result = masker(item.types or DESK_TYPES).mask(item.text)
    for gold in item.gold:
        covered = {i for r in result.redactions if r.type == gold.type for i in range(r.start, r.end)}
        assert set(range(gold.start, gold.end)) <= covered, item.text[gold.start : gold.end]
    for redaction in result.redactions:
        assert any(g.type == redaction.type and g.start <= redaction.start and redaction.end <= g.end
                   for g in item.gold), item.text[redaction.start : redaction.end]
    if item.clean:
        assert result.text.encode() == item.text.encode()


def test_names_are_supported_but_off_in_the_desks_answers() -> None:
    assert "NAME" in SUPPORTED_TYPES
    assert "NAME" not in DESK_TYPES
