"""Held-out attacks retyped in common disguises, through the guards a turn meets.

    .venv/bin/python -m evals.reports.disguises [--out DECISIONS.json]

The desk's `test` attacks (never trained on) as typed, and each retyped the way attack tools and
people disguise a request from a filter: leetspeak (every letter or some), letters spaced out or
joined by dashes, random capitals, Cyrillic look-alikes, an accent on every vowel, zero-width
spaces between letters, and swapped letters (typos). Each text goes through the sanitizer, the
Judge and the Guardrail as in `blind_batch`, and the report prints blocked/n per disguise. Every
disguise is seeded by the text it changes, so two runs score the same texts.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from evals.reports.blind_batch import Case, run
from guards.classifier.data import desk_cases

_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"})
_LOOK_ALIKES = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"})


def _rng(text: str) -> random.Random:
    return random.Random(f"disguise:{text}")


def _some_leet(text: str) -> str:
    rng = _rng(text)
    return "".join(ch.translate(_LEET) if rng.random() < 0.5 else ch for ch in text)


def _random_capitals(text: str) -> str:
    rng = _rng(text)
    return "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in text)


def _typos(text: str) -> str:
    rng, words = _rng(text), []
    for word in text.split():
        if len(word) > 4 and rng.random() < 0.6:
            i = rng.randrange(1, len(word) - 2)
            word = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        words.append(word)
    return " ".join(words)


DISGUISES: dict[str, Callable[[str], str]] = {
    "as typed": lambda text: text,
    "leetspeak": lambda text: text.translate(_LEET),
    "some leetspeak": _some_leet,
    "spaced letters": " ".join,
    "dashed letters": lambda text: " ".join("-".join(word) for word in text.split()),
    "random capitals": _random_capitals,
    "look-alike letters": lambda text: text.translate(_LOOK_ALIKES),
    "accented vowels": lambda text: "".join(ch + "\u0301" if ch in "aeiou" else ch for ch in text),
    "zero-width spaces": "\u200b".join,
    "typos": _typos,
}


def held_out_attacks() -> list[tuple[str, str]]:
    """The desk's `test` attacks (text, language): its case files' and the probes', which no model was
    trained on."""
    return [(e.text, e.tags.get("lang", "en")) for e, split, guard in desk_cases()
            if split == "test" and guard == "judge" and e.label == 1]


def disguised(attacks: Sequence[tuple[str, str]]) -> list[Case]:
    return [Case(text=disguise(text), kind="attack", family=name, lang=lang)
            for name, disguise in DISGUISES.items() for text, lang in attacks]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write every decision here as JSON")
    args = parser.parse_args(argv)
    run(disguised(held_out_attacks()), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
