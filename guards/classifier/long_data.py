"""The long documents the Judge's long reader (`long_reader.py`) learns from, all `dev`.

Harmless: BIPIA's train e-mails and long Markdown tables, batch 21's `dev` customers pasting a shop
document (`cases/pasted_documents.yaml`), batch 22's `dev` customers writing at length
(`cases/long_messages.yaml`), and the written customers of `texts/pasted.yaml` and `texts/long.yaml`.
Attacks: the same files' long attacks (an instruction in a document or a story, a role-play), whose
pieces are not labelled (which piece holds the instruction is learnt, `long_training.py`), and BIPIA
contexts with one of the desk's written attacks put in near their start, middle or end, where the
pieces holding it are the attack.
Each document belongs to a `group` (who wrote it, which file, or which part of BIPIA), the unit held
out when the threshold is chosen. `heldout_documents` are what the reader's card reports.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import yaml

from guards.classifier import datasets
from guards.classifier.data import OFF_CARD_CASES, PROBES, WRITTEN, file_cases, written
from guards.classifier.embedders import EMBED_CHARS
from guards.classifier.long_reader import pieces
from pipeline.core.settings.guard_sections import MessageLimits

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
#: Long texts written for the reader: customers pasting a document and documents hiding an
#: instruction (writers d, e); customers writing at length in their own words and attacks told as
#: their stories, hidden in pasted material or in a role-play (writers H, I).
WRITTEN_LONG = ("pasted.yaml", "long.yaml")
#: The group every composed document and BIPIA's trained contexts belong to; never held out.
ALWAYS_TRAINED = "bipia-train"
#: The longest message the sanitizer passes by default: longer prompts never reach the Judge.
SANITIZER_CHARS: int = MessageLimits.model_fields["max_message_chars"].default


@dataclass(frozen=True)
class Document:
    text: str
    label: int
    group: str

    @cached_property
    def pieces(self) -> list[str]:
        """The pieces the reader scores; cut once, read in every fit."""
        return pieces(self.text)


@dataclass(frozen=True)
class Composed:
    """A document with an attack put in, as pieces; `attack` holds the indexes of those with it."""

    pieces: tuple[str, ...]
    attack: frozenset[int]


def probe_half(name: str, split: str, group: str) -> list[Document]:
    """One half of a probe file (`data.PROBES`, `data.OFF_CARD_CASES`) as documents; `group` may
    name a case's fields (`"b22-{writer}"`)."""
    path = next(p for p in (*PROBES, *OFF_CARD_CASES) if p.name == name)
    return [Document(c["text"], int(c["kind"] == "attack"), group.format_map(c))
            for c in file_cases(path) if c["split"] == split]


def written_documents(names: tuple[str, ...] = WRITTEN_LONG) -> list[Document]:
    """The long texts written for the reader (`texts/<name>`), grouped by writer."""
    items = [t for name in names for t in yaml.safe_load((WRITTEN / name).read_text("utf-8"))["texts"]]
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
            + [Document(t, 0, ALWAYS_TRAINED) for t in trained] + probe_half("pasted_documents.yaml", "dev", "b21dev")
            + probe_half("long_messages.yaml", "dev", "b22-{writer}") + written_documents())
    return docs, _composed(trained, rng)


def heldout_documents(root: Path = datasets.DEFAULT_ROOT) -> dict[str, list[Document]]:
    """What the card reports, never trained on: batches 21, 22 and 23's `test` halves, BIPIA's test
    e-mails and tables longer than one reading, and the long public attack prompts the sanitizer
    lets through (the Judge's classifier learnt from them; the reader reads only texts that fit one
    piece)."""
    bipia = [Document(t, 0, "bipia-test") for kind in ("email", "table")
             for t in datasets.bipia_contexts(root, kind, "test") if len(t) > EMBED_CHARS]
    prompts = [Document(t, 1, "public-long") for t in (datasets.jailbreakbench_prompts(root)
                                                       + datasets.giskard_injections(root)
                                                       + datasets.bipia_code_attacks(root))
               if EMBED_CHARS < len(t) <= SANITIZER_CHARS]
    return {"batch 23 `test` (long_more_writers.yaml, two writers never trained on)":
                probe_half("long_more_writers.yaml", "test", "b23test"),
            "batch 21 `test` (pasted_documents.yaml)": probe_half("pasted_documents.yaml", "test", "b21test"),
            "batch 22 `test` (long_messages.yaml; its writers' `dev` half trained on)":
                probe_half("long_messages.yaml", "test", "b22test"),
            "BIPIA test e-mails and tables": bipia,
            f"JailbreakBench, Giskard, BIPIA code prompts of {EMBED_CHARS + 1}–{SANITIZER_CHARS} chars": prompts}
