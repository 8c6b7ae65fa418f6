"""Items and scores for the Data Masker's figures, shared by the report and the Presidio benchmark.

Items come from presidio-research's synthetic set and from the shop's own case files
(`evals/cases/masker/shop_*.yaml`, `names.yaml`), each with its split. Two ways to count a hit:

- **span level**: a gold span is found when a detection *of its type* overlaps it; a detection is
  correct when it overlaps a gold span of its type. Gold boundaries in presidio-synth are loose (an
  address may or may not include its city, and the set labels lone fragments such as a bare
  building number or "Suite 212" as STREET_ADDRESS), so overlap, not identical offsets, is the rule.
- **value level** ("removed from the output"): a gold value is removed when no run of its characters
  that is left unmasked (by a redaction of any type) holds `min(4, n)` or more letters and digits,
  n being the letters and digits the whole value has. So "Apt. [ADDRESS]" counts as removed ("Apt"
  is 3), "Puruntie [ADDRESS]" does not, and a 3-digit value left whole does not either. A detection
  is correct at value level when it overlaps any gold value of any labelled type (a masked city or
  postcode is PII, even where the set labels it GPE or ZIP_CODE).

Also counted: PII-free items left untouched (no redaction at all), and items where a redaction
covers a letter or digit outside every gold span ("bytes changed outside PII"; separators such as
", " or a line break between two labelled parts of one address are not content and do not count).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from guards.masker.base import Span

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "evals" / "cases" / "masker"
DATASETS = ROOT.parent / "shared" / "datasets"
PRESIDIO_SYNTH = Path("presidio-synth/synth_dataset_v2.json")
#: presidio-synth labels → the Masker's types; other labels (GPE, ORGANIZATION, …) are not masked.
TYPE_MAP = {
    "EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE", "CREDIT_CARD": "CARD", "IBAN_CODE": "IBAN",
    "US_SSN": "SSN", "IP_ADDRESS": "IP", "STREET_ADDRESS": "ADDRESS", "PERSON": "NAME",
}
CORE = ("EMAIL", "PHONE", "CARD", "ADDRESS", "IBAN", "SSN")
Predictor = Callable[[str], list[Span]]


@dataclass(frozen=True)
class Item:
    source: str  # "presidio-synth" or "shop"
    id: str
    split: str
    text: str
    gold: tuple[Span, ...]  # spans of the Masker's types
    labelled: tuple[tuple[int, int], ...]  # every labelled span, of any type
    clean: bool  # the item holds no PII of any labelled type
    region: str = ""
    types: tuple[str, ...] | None = None  # the case's own Masker configuration, if it has one


def presidio_items(datasets: Path = DATASETS) -> list[Item]:
    items = []
    for n, record in enumerate(json.loads((datasets / PRESIDIO_SYNTH).read_text("utf-8"))):
        spans = record["spans"]
        gold = tuple(Span(TYPE_MAP[s["entity_type"]], s["start_position"], s["end_position"])
                     for s in spans if s["entity_type"] in TYPE_MAP)
        labelled = tuple((s["start_position"], s["end_position"]) for s in spans)
        items.append(Item("presidio-synth", str(n), "dev", record["full_text"], gold, labelled, not spans))
    return items


def shop_items(names: Iterable[str]) -> list[Item]:
    items = []
    for name in names:
        for case in yaml.safe_load((CASES / name).read_text("utf-8"))["cases"]:
            gold, cursor = [], 0
            for pii in case.get("pii", []):
                start = case["text"].index(pii["value"], cursor)
                cursor = start + len(pii["value"])
                gold.append(Span(pii["type"], start, cursor))
            items.append(Item("shop", case["id"], case["split"], case["text"], tuple(gold),
                              tuple((g.start, g.end) for g in gold), not gold, case.get("region", ""),
                              tuple(case["types"]) if "types" in case else None))
    return items


def removed(text: str, value: Span, masked: list[Span]) -> bool:
    """Whether `value` is removed from the output in the sense of the module docstring."""
    covered = [False] * (value.end - value.start)
    for m in masked:
        for i in range(max(m.start, value.start), min(m.end, value.end)):
            covered[i - value.start] = True
    total = sum(c.isalnum() for c in text[value.start : value.end])
    longest = run = 0
    for i, c in enumerate(text[value.start : value.end]):
        if covered[i]:
            run = 0
        elif c.isalnum():
            run += 1
            longest = max(longest, run)
    return longest < min(4, total)


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


@dataclass
class Scores:
    """Counters per type; `ratio(name)` gives (k, n) for the report."""

    gold: Counter[str] = field(default_factory=Counter)
    span_found: Counter[str] = field(default_factory=Counter)
    value_removed: Counter[str] = field(default_factory=Counter)
    pred: Counter[str] = field(default_factory=Counter)
    span_correct: Counter[str] = field(default_factory=Counter)
    value_correct: Counter[str] = field(default_factory=Counter)
    clean: int = 0
    clean_untouched: int = 0
    items: int = 0
    outside_kept: int = 0
    misses: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    def add(self, item: Item, pred: list[Span], types: Iterable[str]) -> None:
        wanted = set(types)
        gold = [g for g in item.gold if g.type in wanted]
        labelled = [Span("", s, e) for s, e in item.labelled]
        self.items += 1
        for g in gold:
            self.gold[g.type] += 1
            found = any(p.type == g.type and _overlaps(g, p) for p in pred)
            self.span_found[g.type] += found
            self.value_removed[g.type] += removed(item.text, g, pred)
            if not found:
                self.misses.append(f"{item.source}:{item.id} {g.type} {item.text[g.start:g.end]!r}")
        for p in pred:
            self.pred[p.type] += 1
            ok = any(g.type == p.type and _overlaps(p, g) for g in item.gold)
            self.span_correct[p.type] += ok
            self.value_correct[p.type] += any(_overlaps(p, s) for s in labelled)
            if not ok:
                self.false_positives.append(f"{item.source}:{item.id} {p.type} {item.text[p.start:p.end]!r}"
                                            f" in {item.text[:100]!r}")
        if item.clean:
            self.clean += 1
            self.clean_untouched += not pred
        outside = any(item.text[i].isalnum() and not any(s <= i < e for s, e in item.labelled)
                      for p in pred for i in range(p.start, p.end))
        self.outside_kept += not outside


def score(items: Iterable[Item], predictions: Iterable[list[Span]], types: Iterable[str]) -> Scores:
    scores = Scores()
    wanted = tuple(types)
    for item, pred in zip(items, predictions, strict=True):
        scores.add(item, [p for p in pred if p.type in wanted], wanted)
    return scores
