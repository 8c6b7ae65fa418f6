"""The Data Masker's recall and precision per type, with n and 95% Wilson intervals.

    .venv/bin/python -m evals.reports.masker_datasets [DATASETS_DIR] [--errors N]

Sets: presidio-research's synthetic sentences (a development set) and the shop's own cases, dev and
test split apart (test cases were written before tuning and never used for it). The core types run
with the desk's default configuration (the default `masker_types`: NAME off); person names, an
optional type, get their own table with NAME on. How a hit is counted, span level and value level
("removed from the output"), is defined in `evals/reports/masker_scoring.py`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path

from evals.reports.masker_scoring import (
    CORE,
    DATASETS,
    Item,
    Predictor,
    Scores,
    presidio_items,
    score,
    shop_items,
)
from guards.masker import SUPPORTED_TYPES, Masker
from guards.masker.base import Span
from pipeline.core.intervals import wilson
from pipeline.core.settings import Settings

DEFAULTS = Settings.model_fields

SHOP_FILES = ("shop_pii_dev.yaml", "shop_clean_dev.yaml", "shop_pii_test.yaml", "shop_clean_test.yaml")


def _cell(k: int, n: int) -> str:
    if not n:
        return f"{'—':>22}"
    low, high = wilson(k, n)
    return f"{k / n:6.3f} [{low:.3f}–{high:.3f}]"


def table(title: str, scores: Scores, types: Sequence[str]) -> list[str]:
    lines = [f"## {title} ({scores.items} items)",
             f"{'type':8} {'n':>5} {'span recall':>22} {'value recall':>22} {'pred':>5} "
             f"{'span precision':>22} {'value precision':>22}"]
    rows: list[tuple[str, tuple[str, ...]]] = [(t, (t,)) for t in types if scores.gold[t] or scores.pred[t]]
    if len(rows) > 1:
        rows.append(("core" if set(types) == set(CORE) else "all", tuple(types)))
    for name, group in rows:
        n, found, gone, pred, span_ok, value_ok = (sum(c[t] for t in group) for c in (
            scores.gold, scores.span_found, scores.value_removed, scores.pred, scores.span_correct,
            scores.value_correct))
        lines.append(f"{name:8} {n:5} {_cell(found, n)} {_cell(gone, n)} {pred:5} {_cell(span_ok, pred)} "
                     f"{_cell(value_ok, pred)}")
    lines.append(f"PII-free items untouched: {_cell(scores.clean_untouched, scores.clean)} (n={scores.clean})")
    lines.append(f"no letter or digit masked outside labelled PII: {_cell(scores.outside_kept, scores.items)} "
                 f"(n={scores.items})")
    return lines


def groups(items: list[Item]) -> dict[str, list[Item]]:
    """The items of each reported set, by title."""
    by: dict[str, list[Item]] = {}
    for item in items:
        by.setdefault(f"{item.source} ({item.split})", []).append(item)
    return by


def run(predict: Predictor, items: Iterable[Item], types: Sequence[str]) -> Scores:
    items = list(items)
    return score(items, [predict(item.text) for item in items], types)


def default_types() -> tuple[str, ...]:
    """The desk's default Masker types (read from the settings' defaults: no secrets needed)."""
    types: tuple[str, ...] = DEFAULTS["masker_types"].default
    return types


def _predictor(masker: Masker) -> Predictor:
    def predict(text: str) -> list[Span]:
        return [Span(r.type, r.start, r.end) for r in masker.mask(text).redactions]
    return predict


def _errors(title: str, scores: Scores, limit: int) -> None:
    """Misses and false positives of a dev set; never a test set's, which must not steer tuning."""
    if "(test)" not in title:
        for line in (scores.misses + scores.false_positives)[:limit]:
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="?", type=Path, default=DATASETS)
    parser.add_argument("--errors", type=int, default=0, help="print up to N misses and false positives per set")
    args = parser.parse_args()
    types, regions = default_types(), DEFAULTS["masker_phone_regions"].default
    core_types = [t for t in CORE if t in types]
    desk = _predictor(Masker(types, phone_regions=regions))
    with_names = _predictor(Masker(SUPPORTED_TYPES, phone_regions=regions))
    presidio = presidio_items(args.datasets)
    core_sets = {**groups(presidio), **groups(shop_items(SHOP_FILES))}
    name_sets = {**groups(presidio), **{f"names {k}": v for k, v in groups(shop_items(["names.yaml"])).items()}}
    for title, items in core_sets.items():
        scores = run(desk, items, core_types)
        print("\n".join(table(f"core types, {title}", scores, core_types)), end="\n\n")
        _errors(title, scores, args.errors)
    for title, items in name_sets.items():
        scores = run(with_names, items, ["NAME"])
        print("\n".join(table(f"NAME (optional), {title}", scores, ["NAME"])), end="\n\n")
        _errors(title, scores, args.errors)


if __name__ == "__main__":
    main()
