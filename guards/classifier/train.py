"""`supportdesk train judge|guardrail`: build a guard's classifier, measure it, write it down.

For each embedder design compared: out-of-fold scores of the training data place the threshold,
leave-one-source-out scores the public sets, and the final model scores the desk's `test` split
and the evaluate-only sets. The chosen design's model is written, with its card, beside its guard.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path

import numpy as np

from guards.classifier import artefact, datasets, guards
from guards.classifier.cache import DEFAULT_DIR, EmbeddingCache, Log
from guards.classifier.card import Figure, write_card
from guards.classifier.data import Corpus, Guard, corpus, sampled_by
from guards.classifier.embedders import Design, parts, shared_embedder
from guards.classifier.evaluate import (
    Rate,
    balanced_weights,
    calibrate,
    leave_one_source_out,
    out_of_fold,
    per_source,
)
from guards.classifier.features import Features, NgramSpec
from guards.classifier.logreg import FitParams, fit, probabilities

DESIGNS: tuple[Design | None, ...] = ("e5+minilm", "e5", "minilm", None)
#: The desk's own dev sources are closest to what the desk sees: each weighs as three public sets.
DESK_BOOST = 3.0


@dataclass(frozen=True)
class Options:
    root: Path = datasets.DEFAULT_ROOT
    cache_dir: Path | None = DEFAULT_DIR
    out_dir: Path | None = None
    #: Keep at most this many texts per source (a quick smoke build), else everything.
    sample: int | None = None
    designs: tuple[Design | None, ...] = DESIGNS
    params: FitParams = field(default_factory=FitParams)
    spec: NgramSpec = field(default_factory=NgramSpec)


@dataclass
class Result:
    design: str
    threshold: float
    figures: list[Figure]
    per_source: dict[str, Rate]


def _features(texts: Sequence[str], design: Design | None, options: Options, shape: bool,
              log: Log = print) -> Features:
    # Each embedder's vectors are cached apart, so a design joining two reuses both caches.
    dense = (np.hstack([EmbeddingCache(shared_embedder(p), options.cache_dir, log).embed(texts) for p in parts(design)])
             if design else np.zeros((len(texts), 0), dtype=np.float32))
    return artefact.featurize(texts, dense, options.spec, shape)


def _design_name(design: Design | None) -> str:
    return f"{design} embedding + char n-grams" if design else "char n-grams only"


@dataclass
class Prepared:
    """A guard's corpus as the fits need it: computed once, shared by every design."""

    guard: Guard
    data: Corpus
    texts: list[str]
    labels: np.ndarray
    weights: np.ndarray
    sources: list[str]
    pre: dict[str, bool | None]

    @property
    def public(self) -> list[str]:
        return sorted({s for s in self.sources if not s.startswith("desk:")})


@dataclass
class Evaluation:
    design: Design | None
    threshold: float
    rule: str
    scored: guards.Scored
    final: np.ndarray
    #: Out-of-fold P(block) of the training texts, in `Prepared.texts` order (what placed the threshold).
    oof: np.ndarray


def prepare(guard: Guard, options: Options) -> Prepared:
    data = corpus(guard, options.root)
    by_source = attrgetter("source")
    data = Corpus(sampled_by(data.train, options.sample, by_source),
                  sampled_by(data.held_out, options.sample, by_source))
    sources = [e.source for e in data.train]
    labels = np.array([e.label for e in data.train], dtype=np.int64)
    boost = per_source(labels, sources, lambda s: DESK_BOOST if s.startswith("desk:") else 1.0)
    weights = balanced_weights(labels, boost)
    pre = guards.SPECS[guard].pre_decisions([e.text for e in data.train + data.held_out])
    return Prepared(guard, data, [e.text for e in data.train], labels, weights, sources, pre)


def evaluate_design(prep: Prepared, design: Design | None, options: Options, log: Log = print) -> Evaluation:
    """Threshold from out-of-fold scores; public sets scored leave-one-source-out; the final model
    scores the desk's `test` split and the evaluate-only sets."""
    spec_ = guards.SPECS[prep.guard]
    log(f"{prep.guard}: {_design_name(design)} on {len(prep.texts)} texts")
    features = _features(prep.texts, design, options, spec_.shape, log)
    oof = out_of_fold(features, prep.labels, prep.weights, prep.texts, options.params)
    threshold, rule = calibrate(oof, spec_.calibration_groups(prep.data.train, prep.labels))
    loso = leave_one_source_out(features, prep.labels, prep.weights, prep.sources, prep.public, options.params,
                                on_fold=lambda s: log(f"  without {s}"))
    final = fit(features, prep.labels, prep.weights, options.params)
    held_out = _features([e.text for e in prep.data.held_out], design, options, spec_.shape, log)
    held_scores = probabilities(final, held_out, options.params.dense_scale, options.params.hidden)
    scored = spec_.score_table(prep.data, prep.sources, loso, held_scores)
    return Evaluation(design, threshold, rule, scored, final, oof)


def run(guard: Guard, options: Options = Options(), log: Log = print) -> list[Result]:
    spec_ = guards.SPECS[guard]
    prep = prepare(guard, options)
    data = prep.data
    results = []
    best: tuple[Design | None, np.ndarray, float, str] | None = None
    for design in options.designs:
        ev = evaluate_design(prep, design, options, log)
        figures, per_source = spec_.figures(ev.scored, ev.threshold, prep.pre)
        results.append(Result(_design_name(design), ev.threshold, figures, per_source))
        for f in figures:
            log(f"  {f.name}: {f.rate.show()} target {f.target}")
        if design == spec_.design or best is None:
            best = (design, ev.final, ev.threshold, ev.rule)
    if options.out_dir is not None and best is not None:
        design, final, threshold, rule = best
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for e in data.train:
            counts[e.source][str(e.label)] += 1
        meta = artefact.ModelMeta(
            guard=guard, design=design, dims=0 if design is None else shared_embedder(design).dims,
            buckets=options.spec.buckets, min_n=options.spec.min_n, max_n=options.spec.max_n,
            max_chars=options.spec.max_chars, dense_scale=options.params.dense_scale, shape=spec_.shape,
            hidden=options.params.hidden,
            threshold=round(threshold, 6), threshold_rule=rule,
            training_counts={s: dict(c) for s, c in sorted(counts.items())})
        pins = artefact.save(options.out_dir, guard, meta, final)
        chosen = next(r for r in results if r.design == _design_name(design))
        card = write_card(meta, pins, chosen.figures, chosen.per_source,
                          {r.design: r.figures for r in results}, f"supportdesk train {guard}")
        (options.out_dir / f"{guard}.md").write_text(card, encoding="utf-8")
        log(f"wrote {options.out_dir}/{guard}.json, .weights.npy, .md")
    return results


def with_sample(options: Options, sample: int | None) -> Options:
    return replace(options, sample=sample)
