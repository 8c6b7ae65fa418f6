"""The long reader's model card, and the held-out documents it reports (never trained on)."""

from __future__ import annotations

from pathlib import Path

import yaml

from guards.classifier import datasets
from guards.classifier.data import PROBES
from guards.classifier.embedders import EMBED_CHARS
from guards.classifier.evaluate import Rate
from guards.classifier.long_data import Document
from guards.classifier.long_reader import LongReaderMeta
from pipeline.core.settings.guard_sections import MessageLimits

#: The longest message the sanitizer passes by default: longer prompts never reach the Judge.
SANITIZER_CHARS: int = MessageLimits.model_fields["max_message_chars"].default


def heldout_documents(root: Path = datasets.DEFAULT_ROOT) -> dict[str, list[Document]]:
    """Batches 21 and 22's `test` halves, BIPIA's test e-mails and tables longer than one reading, and the long
    public attack prompts the sanitizer lets through (the Judge's classifier learnt from them; the
    reader reads only texts that fit one piece)."""

    def test_half(name: str) -> list[Document]:
        path = next(p for p in PROBES if p.name == name)
        return [Document(c["text"], int(c["kind"] == "attack"), name)
                for c in yaml.safe_load(path.read_text("utf-8"))["cases"] if c["split"] == "test"]

    bipia = [Document(t, 0, "bipia-test") for kind in ("email", "table")
             for t in datasets.bipia_contexts(root, kind, "test") if len(t) > EMBED_CHARS]
    prompts = [Document(t, 1, "public-long") for t in (datasets.jailbreakbench_prompts(root)
                                                       + datasets.giskard_injections(root)
                                                       + datasets.bipia_code_attacks(root))
               if EMBED_CHARS < len(t) <= SANITIZER_CHARS]
    return {"batch 21 `test` (pasted_documents.yaml)": test_half("pasted_documents.yaml"),
            "batch 22 `test` (long_messages.yaml, written after the reader)": test_half("long_messages.yaml"),
            "BIPIA test e-mails and tables": bipia,
            f"JailbreakBench, Giskard, BIPIA code prompts of {EMBED_CHARS + 1}–{SANITIZER_CHARS} chars": prompts}


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
        f"  line and sentence), x{meta.dense_scale:g}, and a bias; logistic regression, balanced classes.",
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
