"""Fixed, seeded samples of the public data sets (`--datasets`), reported apart from our own cases.

Only sets whose licence allows evaluation are sampled; tensor-trust has no licence and may be used
to evaluate only, which is all this does (its texts are never copied into the project). The
JailbreakBench loader never touches the `response` fields. Every run draws the same sample.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Literal, NamedTuple

from evals.casefiles import MessageCase, MessageSection
from guards.classifier import datasets

SEED = 20261101


def tensor_trust_attacks(root: Path) -> list[str]:
    lines = (root / "tensor-trust" / "attacks_dedup.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


class PublicSet(NamedTuple):
    loader: Callable[[Path], list[str]]
    expect: Literal["block", "allow"]
    section: MessageSection
    licence: str
    #: ISO 639-1 code, or "und" for sets that mix languages.
    language: str = "en"


PUBLIC_SETS: dict[str, PublicSet] = {
    "jailbreakbench": PublicSet(datasets.jailbreakbench_prompts, "block", "attack", "MIT"),
    "giskard": PublicSet(datasets.giskard_injections, "block", "attack", "MIT"),
    "gandalf": PublicSet(datasets.gandalf_previews, "block", "attack", "Apache-2.0", "und"),
    "tensor-trust": PublicSet(tensor_trust_attacks, "block", "attack", "none stated: evaluation only", "und"),
    "tau-bench-retail": PublicSet(datasets.tau_user_turns, "allow", "legit", "MIT"),
    "clinc150-order": PublicSet(lambda root: datasets.clinc_split(root)["on_topic"], "allow", "legit", "CC BY 3.0"),
    "clinc150-oos": PublicSet(lambda root: datasets.clinc_split(root)["oos"], "block", "offtopic", "CC BY 3.0"),
}


def dataset_sample(root: Path, per_set: int, seed: int = SEED) -> dict[str, list[MessageCase]]:
    """A fixed-seed sample of each public set (the same sample on every run); all count as `test`."""
    out: dict[str, list[MessageCase]] = {}
    for name, spec in PUBLIC_SETS.items():
        texts = spec.loader(root)
        picked = sorted(random.Random(seed).sample(range(len(texts)), min(per_set, len(texts))))
        out[name] = [MessageCase(id=f"{name}#{i}", split="test", text=texts[i], expect=spec.expect, group=name,
                                 section=spec.section, source=name, language=spec.language) for i in picked]
    return out
