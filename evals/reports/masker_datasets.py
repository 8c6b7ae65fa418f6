"""Span-level precision/recall of the Data Masker on presidio-research's synthetic PII set.

    .venv/bin/python -m evals.reports.masker_datasets [DATASETS_DIR] [--errors N]

A detection counts as correct when it overlaps a gold span of the same type (gold boundaries in
that set are loose: an address may or may not include its city); `exact` counts identical offsets.
Records without any gold span measure over-masking. Gold types we do not mask are ignored, but a
detection that hits none of our gold spans is a false positive whatever it covered.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from guards.masker import SUPPORTED_TYPES, Masker
from guards.masker.base import Span

DATASET = Path("presidio-synth/synth_dataset_v2.json")
TYPE_MAP = {
    "EMAIL_ADDRESS": "EMAIL",
    "PHONE_NUMBER": "PHONE",
    "CREDIT_CARD": "CARD",
    "IBAN_CODE": "IBAN",
    "US_SSN": "SSN",
    "IP_ADDRESS": "IP",
    "STREET_ADDRESS": "ADDRESS",
}


def _overlaps(a: Span, b: Span) -> bool:
    return a.type == b.type and a.start < b.end and b.start < a.end


def evaluate(records: list[dict], masker: Masker, show_errors: int) -> None:
    gold_n: Counter[str] = Counter()
    pred_n: Counter[str] = Counter()
    found: Counter[str] = Counter()  # gold spans overlapped by a detection of their type
    correct: Counter[str] = Counter()  # detections overlapping a gold span of their type
    exact: Counter[str] = Counter()
    clean_records = clean_flagged = clean_spans = 0
    errors: list[str] = []
    for record in records:
        text = record["full_text"]
        gold = [
            Span(TYPE_MAP[s["entity_type"]], s["start_position"], s["end_position"])
            for s in record["spans"]
            if s["entity_type"] in TYPE_MAP
        ]
        pred = [Span(r.type, r.start, r.end) for r in masker.mask(text).redactions]
        if not record["spans"]:
            clean_records += 1
            clean_flagged += bool(pred)
            clean_spans += len(pred)
        for g in gold:
            gold_n[g.type] += 1
            found[g.type] += any(_overlaps(g, p) for p in pred)
            exact[g.type] += g in pred
            if not any(_overlaps(g, p) for p in pred) and len(errors) < show_errors:
                errors.append(f"MISS {g.type:8} {text[g.start : g.end]!r}")
        for p in pred:
            pred_n[p.type] += 1
            correct[p.type] += any(_overlaps(p, g) for g in gold)
            if not any(_overlaps(p, g) for g in gold) and len(errors) < show_errors:
                errors.append(f"FP   {p.type:8} {text[p.start : p.end]!r} in {text[:120]!r}")

    print(f"{'type':8} {'gold':>5} {'pred':>5} {'precision':>9} {'recall':>7} {'exact-R':>7}")
    for name in [*SUPPORTED_TYPES, "ALL"]:
        n_gold, n_pred, n_correct, n_found, n_exact = (
            sum(c.values()) if name == "ALL" else c[name] for c in (gold_n, pred_n, correct, found, exact)
        )
        precision = n_correct / n_pred if n_pred else 0.0
        recall, exact_recall = (n / n_gold if n_gold else 0.0 for n in (n_found, n_exact))
        print(f"{name:8} {n_gold:5} {n_pred:5} {precision:9.3f} {recall:7.3f} {exact_recall:7.3f}")
    print(f"over-masking: {clean_flagged}/{clean_records} span-free records masked ({clean_spans} spans)")
    for line in errors:
        print(line)


def main() -> None:
    default = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="?", type=Path, default=default)
    parser.add_argument("--errors", type=int, default=0, help="print up to N misses/false positives")
    args = parser.parse_args()
    records = json.loads((args.datasets / DATASET).read_text("utf-8"))
    evaluate(records, Masker(SUPPORTED_TYPES), args.errors)


if __name__ == "__main__":
    main()
