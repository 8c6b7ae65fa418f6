"""The long documents the Judge's long reader (`long_reader.py`) learns from, all `dev`.

Harmless: BIPIA's train e-mails and long Markdown tables, batch 21's `dev` customers pasting a shop
document (`cases/pasted_documents.yaml`), and the written customers of `texts/pasted.yaml`. Attacks:
the same files' documents hiding an instruction, whose pieces are not labelled (which piece holds
the instruction is learnt, `long_training.py`), and BIPIA contexts with one of the desk's written
attacks put in near their start, middle or end, where the pieces holding it are the attack.
Each document belongs to a `group` (who wrote it, or which part of BIPIA), the unit held out when the
threshold is chosen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import yaml

from guards.classifier import datasets
from guards.classifier.data import PROBES, WRITTEN, written
from guards.classifier.embedders import EMBED_CHARS
from guards.classifier.long_reader import pieces

#: Seeds the table shuffle and the composed documents: every build learns from the same texts.
SEED = 20
#: BIPIA tables held out as their own group (harmless only) when the threshold is chosen.
TABLES_HELD_OUT = 150
#: BIPIA tables, after those, that the reader learns from (the set has 851 long ones; more tables
#: would outweigh the shop's own documents).
TABLES_TRAINED = 300
#: Documents made by putting a written attack into a BIPIA context.
COMPOSED = 300
#: A written attack short enough to hide in a document, long enough to be an instruction.
ATTACK_CHARS = (30, 400)
#: The group every composed document and BIPIA's trained contexts belong to; never held out.
ALWAYS_TRAINED = "bipia-train"


@dataclass(frozen=True)
class Document:
    text: str
    label: int
    group: str


@dataclass(frozen=True)
class Composed:
    """A document with an attack put in, as pieces; `attack` holds the indexes of those with it."""

    pieces: tuple[str, ...]
    attack: frozenset[int]


def _pasted_cases() -> list[Document]:
    path = next(p for p in PROBES if p.name == "pasted_documents.yaml")
    return [Document(c["text"], int(c["kind"] == "attack"), "b21dev")
            for c in yaml.safe_load(path.read_text("utf-8"))["cases"] if c["split"] == "dev"]


def _written_pasted() -> list[Document]:
    items = yaml.safe_load((WRITTEN / "pasted.yaml").read_text("utf-8"))["texts"]
    return [Document(t["text"], int(t["kind"] == "attack"), f"writer-{t['writer']}") for t in items]


def _put_in(document: str, attack: str, rng: random.Random) -> str:
    separator = "\n" if "\n" in document else ". "
    lines = document.split(separator)
    position = rng.choice(["start", "middle", "end"])
    near_start, near_end = rng.randint(0, min(2, len(lines))), len(lines) - rng.randint(0, min(2, len(lines)))
    at = {"start": near_start, "middle": len(lines) // 2, "end": near_end}[position]
    return separator.join([*lines[:at], attack, *lines[at:]])


def _composed(hosts: list[str], rng: random.Random) -> list[Composed]:
    attacks = [e.text for e in written("judge") if e.source == "desk:written-attacks"
               and ATTACK_CHARS[0] <= len(e.text) <= ATTACK_CHARS[1]]
    out = []
    for attack in rng.sample(attacks, min(COMPOSED, len(attacks))):
        cut = pieces(_put_in(rng.choice(hosts), attack, rng))
        words = " ".join(attack.split())
        holding = frozenset(i for i, p in enumerate(cut) if words[:25] in p or words[-25:] in p)
        if holding:  # else the attack was cut across pieces too finely to find: left out
            out.append(Composed(tuple(cut), holding))
    return out


def documents(root: Path = datasets.DEFAULT_ROOT) -> tuple[list[Document], list[Composed]]:
    """Every training document, in a fixed order, and the composed ones."""
    rng = random.Random(SEED)
    emails = datasets.bipia_contexts(root, "email", "train")
    tables = [t for t in datasets.bipia_contexts(root, "table", "train") if len(t) > EMBED_CHARS]
    rng.shuffle(tables)
    trained = emails + tables[TABLES_HELD_OUT:TABLES_HELD_OUT + TABLES_TRAINED]
    docs = ([Document(t, 0, "bipia-tables") for t in tables[:TABLES_HELD_OUT]]
            + [Document(t, 0, ALWAYS_TRAINED) for t in trained] + _pasted_cases() + _written_pasted())
    return docs, _composed(trained, rng)
