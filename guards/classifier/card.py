"""The model card written beside each artefact: data, features, threshold, held-out figures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from guards.classifier.artefact import ModelMeta
from guards.classifier.evaluate import Rate
from guards.classifier.features import SHAPE


@dataclass(frozen=True)
class Figure:
    """One held-out figure: what was measured, on what, against which target."""

    name: str
    rate: Rate
    target: str
    met: bool
    on: str


def figures_table(figures: Sequence[Figure]) -> list[str]:
    rows = ["| figure | measured (n; 95% Wilson) | target | met | held out how |", "| --- | --- | --- | --- | --- |"]
    rows += [f"| {f.name} | {f.rate.show()} | {f.target} | {'yes' if f.met else '**no**'} | {f.on} |"
             for f in figures]
    return rows


def _head(meta: ModelMeta) -> str:
    if not meta.hidden:
        return "Logistic regression"
    return f"A {meta.hidden}-unit ReLU layer on the embedding, then one logistic output with the n-grams,"


def write_card(meta: ModelMeta, pins: dict[str, str], figures: Sequence[Figure],
               per_source: dict[str, Rate], designs: dict[str, Sequence[Figure]], command: str) -> str:
    counts = Counter({s: sum(c.values()) for s, c in meta.training_counts.items()})
    lines = [
        f"# Model card: {meta.guard} classifier",
        "",
        f"Built by `{command}`; deterministic (fixed seeds, full-batch optimiser from zero weights).",
        f"Label 1 = block ({'an attack' if meta.guard == 'judge' else 'off topic'}).",
        "",
        "## Model",
        f"- {_head(meta)} over [{meta.design or 'no'} sentence embedding ({meta.dims} dims, "
        f"scaled x{meta.dense_scale:g})]"
        + (f" + [{len(SHAPE)} shape fractions: {', '.join(SHAPE)}, scaled the same]" if meta.shape else "")
        + f" + [hashed character {meta.min_n}-{meta.max_n}-grams of the "
        f"NFKC/case-folded text, {meta.buckets} CRC-32 buckets, log(1+count), L2-normalised].",
        f"- Threshold: block iff P(block) >= {meta.threshold:.4f}. Chosen as the {meta.threshold_rule}.",
        "- Files (SHA-256, verified on load):",
        *(f"  - `{name}` `{sha}`" for name, sha in sorted(pins.items()) if name.startswith(meta.guard)),
        "",
        "## Training data (texts per source; desk sources use the `dev` split only)",
        "| source | block | allow |", "| --- | --- | --- |",
        *(f"| {s} | {meta.training_counts[s].get('1', 0)} | {meta.training_counts[s].get('0', 0)} |"
          for s in sorted(counts)),
        f"| total | {sum(c.get('1', 0) for c in meta.training_counts.values())} | "
        f"{sum(c.get('0', 0) for c in meta.training_counts.values())} |",
        "",
        "## Held-out figures of the whole guard (rules and fast paths, then this model)",
        "Public sets: leave-one-source-out (each scored by a model trained without it). Desk cases:",
        "the `test` split, never trained on or used for the threshold. tensor-trust: evaluate only.",
        "",
        *figures_table(figures),
        "",
        "### Per source (share blocked)",
        "| source | blocked |", "| --- | --- |",
        *(f"| {s} | {r.show()} |" for s, r in sorted(per_source.items())),
        "",
        "## Designs compared (same data, folds and threshold rule)",
    ]
    for design, figs in designs.items():
        lines += ["", f"### {design}", *figures_table(figs)]
    return "\n".join(lines) + "\n"
