"""`supportdesk train judge-long`: build the Judge's long reader, choose its threshold, write its card.

A network with one hidden layer over e5 vectors learns from the Judge's own training texts that
fit one piece (weighted down: `SHORT_WEIGHT`), every piece of the harmless long documents, and the
composed documents' pieces (`long_data.py`). A document hiding an instruction does not say which
piece holds it, so after a first fit each such document's highest-scoring piece is taken as an
attack and the model is fitted again (one round of multiple-instance learning). The threshold is
the highest at which documents scored by models trained without their group (who wrote them),
pooled, have `ATTACK_FLOOR` of their attacks blocked: no `test` text is read to choose anything.
The card then reports `long_data.heldout_documents`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

import numpy as np

from guards.classifier import artefact, datasets
from guards.classifier.cache import EmbeddingCache, Log
from guards.classifier.data import corpus, sampled_by
from guards.classifier.embedders import EMBED_CHARS, shared_e5
from guards.classifier.evaluate import Rate, balanced_weights
from guards.classifier.features import Floats
from guards.classifier.logreg import FitParams, fit
from guards.classifier.long_card import write_long_card
from guards.classifier.long_data import ALWAYS_TRAINED, Composed, Document, documents, heldout_documents
from guards.classifier.long_reader import NAME, PIECE_CHARS, LongReaderMeta, piece_probabilities, vectors_only

# A hidden layer of 32 units: a hyperplane over e5 could not keep a long customer's own sentences
# ("are you a bot?", "she gave me her login") apart from attacks; 64 units did no better held out.
PARAMS = FitParams(l2=1e-3, steps=300, learning_rate=0.01, dense_scale=3.0, hidden=32)
#: Weight of each short text against a document's piece. The short texts were labelled for a Judge
#: reading whole messages; at full weight their attacks taught the reader that a customer's
#: sentence about logins or bots is one (evals/JOURNAL.md, "The long reader learns own words").
SHORT_WEIGHT = 0.3
SHORT_TEXTS = "short texts"
#: Share of the held-out long attacks the threshold must block: the previous reader's, pooled over
#: the same groups (435 of 504). Youden's J put it where this reader blocked fewer of them (416),
#: so attacks come first and the customers refused are what is left to lower.
ATTACK_FLOOR = 0.863
#: Thresholds tried, in steps of 0.01: a finer step would fit the few hundred held-out documents.
CANDIDATES = np.round(np.arange(0.30, 1.0, 0.01), 2)


@dataclass
class Rows:
    """Training rows: pieces or short texts, their labels and where they came from."""

    texts: list[str]
    labels: list[int]
    sources: list[str]

    def add(self, texts: list[str], labels: list[int], source: str) -> None:
        self.texts += texts
        self.labels += labels
        self.sources += [source] * len(texts)


class Trainer:
    def __init__(self, cache: EmbeddingCache, short: list[tuple[str, int]], composed: list[Composed]) -> None:
        self._cache = cache
        self._short = short
        self._composed = composed

    def vectors(self, texts: list[str]) -> Floats:
        return self._cache.embed(texts)

    def piece_scores(self, weights: np.ndarray, document: Document) -> Floats:
        return piece_probabilities(weights, self.vectors(document.pieces), PARAMS.dense_scale, PARAMS.hidden)

    def fit(self, docs: list[Document]) -> tuple[np.ndarray, Rows]:
        rows = Rows([t for t, _ in self._short], [label for _, label in self._short],
                    [SHORT_TEXTS] * len(self._short))
        for doc in (d for d in docs if d.label == 0):
            rows.add(doc.pieces, [0] * len(doc.pieces), f"{doc.group} pieces")
        for made in self._composed:
            rows.add(list(made.pieces), [int(i in made.attack) for i in range(len(made.pieces))], "composed pieces")
        weights = self._fit(rows)
        attacks = [d for d in docs if d.label == 1]
        for doc in attacks:
            rows.add([doc.pieces[int(self.piece_scores(weights, doc).argmax())]], [1], f"{doc.group} top piece")
        return (self._fit(rows) if attacks else weights), rows

    def _fit(self, rows: Rows) -> np.ndarray:
        labels = np.array(rows.labels, dtype=np.int64)
        weights = balanced_weights(labels, np.where(np.array(rows.sources) == SHORT_TEXTS, SHORT_WEIGHT, 1.0))
        return fit(vectors_only(self.vectors(rows.texts)), labels, weights, PARAMS)

    def score(self, weights: np.ndarray, document: Document) -> float:
        return float(self.piece_scores(weights, document).max())


def _threshold(trainer: Trainer, docs: list[Document], log: Log
               ) -> tuple[float, str, dict[str, list[tuple[int, float]]]]:
    """The threshold, the rule that chose it (for the card), and each group's held-out scores."""
    held: dict[str, list[tuple[int, float]]] = {}
    for group in sorted({d.group for d in docs} - {ALWAYS_TRAINED}):
        weights, _ = trainer.fit([d for d in docs if d.group != group])
        held[group] = [(d.label, trainer.score(weights, d)) for d in docs if d.group == group]
        log(f"  {group} held out: {len(held[group])} documents scored")
    pooled = [pair for pairs in held.values() for pair in pairs]
    attacks = np.array([s for label, s in pooled if label == 1])
    # The highest threshold, so the fewest customers refused, that still blocks the floor's share.
    reaching = [t for t in CANDIDATES if (attacks >= t).mean() >= ATTACK_FLOOR]
    if reaching:
        return float(max(reaching)), (f"the highest at which documents scored with their group held out, pooled, "
                                      f"have at least {ATTACK_FLOOR:.1%} of their attacks blocked"), held
    # A small sample can miss the floor everywhere; blocking the most is the side that fails closed.
    lowest = float(CANDIDATES[0])
    log(f"  no threshold blocks {ATTACK_FLOOR:.1%} of the held-out attacks: the lowest, {lowest:.2f}, is used")
    return lowest, (f"the lowest candidate: none blocks {ATTACK_FLOOR:.1%} of the attacks in documents "
                    f"scored with their group held out"), held


def run(out_dir: Path, root: Path = datasets.DEFAULT_ROOT, cache_dir: Path | None = None,
        sample: int | None = None, log: Log = print) -> dict[str, str]:
    """Train, choose the threshold, write `long.json`, `long.weights.npy`, their pins and `long.md`."""
    docs, composed = documents(root)
    docs = sampled_by(docs, sample, attrgetter("group"))
    composed = composed[:sample] if sample else composed
    fitting = [e for e in corpus("judge", root).train if len(e.text) <= EMBED_CHARS]
    short = [(e.text, e.label) for e in sampled_by(fitting, sample, attrgetter("source"))]
    heldout = {name: sampled_by(ds, sample, attrgetter("group")) for name, ds in heldout_documents(root).items()}
    trainer = Trainer(EmbeddingCache(shared_e5(), cache_dir, log), short, composed)
    log(f"long reader: {len(short)} short texts, {len(docs)} documents, {len(composed)} composed")
    # Every text embedded in one pass: the cache writes its file after each call that embeds.
    every_document = docs + [d for ds in heldout.values() for d in ds]
    trainer.vectors([t for t, _ in short] + [p for d in every_document for p in d.pieces]
                    + [p for c in composed for p in c.pieces])
    threshold, rule, held = _threshold(trainer, docs, log)
    weights, rows = trainer.fit(docs)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for source, label in zip(rows.sources, rows.labels, strict=True):
        counts[source][str(label)] += 1
    meta = LongReaderMeta(piece_chars=PIECE_CHARS, dense_scale=PARAMS.dense_scale, hidden=PARAMS.hidden,
                          threshold=threshold, threshold_rule=rule,
                          training_counts={s: dict(c) for s, c in sorted(counts.items())})
    pins = artefact.save(out_dir, NAME, meta, weights)
    test = {name: [Rate(sum(trainer.score(weights, d) >= threshold for d in ds if d.label == label),
                        sum(d.label == label for d in ds)) for label in (0, 1)]
            for name, ds in heldout.items()}
    (out_dir / f"{NAME}.md").write_text(write_long_card(meta, pins, held, test), encoding="utf-8")
    log(f"wrote {out_dir}/{NAME}.json, .weights.npy, .md (threshold {threshold:.2f})")
    return pins
