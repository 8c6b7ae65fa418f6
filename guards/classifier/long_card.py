"""The long reader's model card (its held-out documents are `long_data.heldout_documents`)."""

from __future__ import annotations

from guards.classifier.embedders import EMBED_CHARS
from guards.classifier.evaluate import Rate
from guards.classifier.long_reader import LongReaderMeta


def _row(name: str, harmless: Rate, attacks: Rate) -> str:
    show = [r.show() if r.n else "—" for r in (harmless, attacks)]
    return f"| {name} | {show[0]} | {show[1]} |"


def write_long_card(meta: LongReaderMeta, pins: dict[str, str], held: dict[str, list[tuple[int, float]]],
                    test: dict[str, list[Rate]]) -> str:
    t = meta.threshold
    lines = [
        "# Model card: the Judge's long reader",
        "",
        "Built by `supportdesk train judge-long` (`guards/classifier/long_training.py`); read by",
        "`guards/classifier/long_reader.py` for a message longer than the Judge's model reads at once",
        f"({EMBED_CHARS} characters or 160 tokens). Shorter messages never reach it.",
        "",
        f"- Files: `long.json` sha256 `{pins['long.json']}`, `long.weights.npy` sha256 `{pins['long.weights.npy']}`",
        f"- Features: the multilingual-e5-small vector of each piece (at most {meta.piece_chars} characters, cut by",
        f"  line and sentence), x{meta.dense_scale:g}; {meta.hidden} hidden units (ReLU) and a sigmoid,",
        "  balanced classes.",
        "  A message's P(block) is its highest piece's.",
        f"- Threshold: {t:.2f}, block iff P(block) ≥ it. Rule: {meta.threshold_rule}.",
        "",
        "## Training rows",
        "",
        "| source | harmless | attack |",
        "|---|---|---|",
        *[f"| {s} | {c.get('0', 0)} | {c.get('1', 0)} |" for s, c in meta.training_counts.items()],
        "",
        "## Each group scored by a model trained without it (what chose the threshold)",
        "",
        "Documents blocked at the threshold (95% CI).",
        "",
        "| group | harmless blocked | attacks blocked |",
        "|---|---|---|",
        *[_row(group, Rate(sum(s >= t for label, s in pairs if label == 0), sum(label == 0 for label, _ in pairs)),
               Rate(sum(s >= t for label, s in pairs if label == 1), sum(label == 1 for label, _ in pairs)))
          for group, pairs in held.items()],
        "",
        "## Held out (the reader never trained on them, nor chose anything by them)",
        "",
        "The reader alone; what a turn does adds the Judge's patterns and the Guardrail (DESIGN.md).",
        "",
        "| set | harmless blocked | attacks blocked |",
        "|---|---|---|",
        *[_row(name, harmless, attacks) for name, (harmless, attacks) in test.items()],
        "",
    ]
    return "\n".join(lines)
