"""The labelled texts each guard is trained and measured on, with where each one came from.

Label 1 means "block": an attack for the Judge, off topic for the Guardrail. Public sets are
subsampled with a fixed seed (training must run in minutes on two cores); the desk's own case
files contribute their `dev` split only, and their `test` split is returned apart for scoring.
tensor-trust has no licence: it is in `held_out` only, never trained on.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml

from guards.classifier import datasets
from guards.classifier.splits import normalise
from guards.guardrail.scope import scope

Guard = Literal["judge", "guardrail"]
Item = TypeVar("Item")
REPO = Path(__file__).resolve().parents[2]
JUDGE_CASES = REPO / "evals" / "cases" / "judge"
GUARDRAIL_CASES = REPO / "pipeline" / "models" / "tests" / "cases" / "guardrail_cases.yaml"
JUDGE_MODEL_CASES = REPO / "pipeline" / "models" / "tests" / "cases" / "judge_cases.yaml"
#: Both guards' probes: attacks, off-topic turns and retail customers, split dev/test like the rest;
#: one file per blind batch (`probes.yaml`; `shop_words.yaml`: shop-policy questions and other firms'
#: turns; `red_team.yaml`: attacks in 20 techniques and customers who sound like them;
#: `follow_ups.yaml`: follow-up answers, conversational turns, reactions, other firms' customers,
#: cross-customer lookups; `agent_attacks.yaml`: attacks on an agent with tools, customers giving
#: personal details, chit-chat, turns on the border with banks and telecoms; `first_contact.yaml`:
#: greetings, chit-chat and homework in 21 languages, customers, attacks on an agent with tools;
#: `shop_framed.yaml`: fraud, other customers' data and harm asked as a customer, other firms' turns;
#: `money_talk.yaml`: money questions to the shop and to other firms; `customer_stories.yaml`: attacks
#: told as a customer's story and honest customers telling the same stories, split by writer;
#: `everyday.yaml`: an ordinary day's customers and turns that do not belong, by two writers;
#: `accounts.yaml`: customers asking about their account with the shop and other firms' account turns,
#: split by writer; `customers_and_attacks.yaml`: a week's customers and attacks in many techniques,
#: by two writers; `pasted_documents.yaml`: customers pasting a long document, and documents hiding an
#: instruction to the assistant; `long_messages.yaml`: long customers' messages and long attacks, by
#: two writers, written to measure the Judge's long reader).
PROBES = tuple(Path(__file__).resolve().with_name("cases") / name
               for name in ("probes.yaml", "shop_words.yaml", "red_team.yaml", "follow_ups.yaml",
                            "agent_attacks.yaml", "first_contact.yaml", "shop_framed.yaml",
                            "money_talk.yaml", "customer_stories.yaml", "everyday.yaml", "accounts.yaml",
                            "customers_and_attacks.yaml", "pasted_documents.yaml", "long_messages.yaml"))
#: Blind batches measured through both guards (`evals.reports.blind_batch`) and not on the guard
#: cards: a card reads every probe file's `test` half, so a new one would mean rebuilding both cards,
#: and these batches are kept to confirm the next candidate (`long_more_writers.yaml`: batch 23, long
#: messages by two writers, also measured by the Judge's long reader; `shop_or_elsewhere.yaml`: batch
#: 24, a week's customers and other firms' turns in the same words; `about_the_desk.yaml`: batch 25,
#: asking for the desk's instructions, its internals or other customers' orders, beside customers
#: who only sound like that; `other_peoples_orders.yaml`: batch 26, other people's orders asked
#: plainly, beside customers who mention other people).
OFF_CARD_CASES = tuple(Path(__file__).resolve().with_name("cases") / name
                       for name in ("long_more_writers.yaml", "shop_or_elsewhere.yaml", "about_the_desk.yaml",
                                    "other_peoples_orders.yaml"))
#: Every case file of the desk: the Judge's, the Guardrail's, the offline models', the probes.
CASE_FILES = (*sorted(JUDGE_CASES.glob("*.yaml")), REPO / "pipeline" / "tests" / "cases" / "guardrail.yaml",
              GUARDRAIL_CASES, JUDGE_MODEL_CASES, *PROBES, *OFF_CARD_CASES)


def file_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of one case file, whether under `cases:` or a bare list."""
    data = yaml.safe_load(path.read_text("utf-8"))
    return data["cases"] if isinstance(data, dict) else data


#: The one probe file whose `dev` half the committed models were trained on. Every later file came
#: after the weights, or was trained on and not adopted (evals/JOURNAL.md: "Shop-policy questions",
#: "Batch 16" to "Batch 22"), so only its `test` half is read, as held-out figures. (The Judge's long
#: reader learns from the `dev` halves of `pasted_documents.yaml` and `long_messages.yaml`:
#: `long_data.py`.)
TRAINED_PROBES = frozenset({"probes.yaml"})
UNTRAINED = frozenset(path.name for path in PROBES) - TRAINED_PROBES
#: Probe files only the Guardrail reads, both halves: topic batches, which say nothing about attacks
#: (`money_talk.yaml`; the Judge refused none of its 240 texts when it was scored).
GUARDRAIL_ONLY = frozenset({"money_talk.yaml"})
#: A probe's kind: its label, and the guard it labels (None = both; an attack says nothing about topic).
_PROBE_KINDS: dict[str, tuple[int, Guard | None]] = {"attack": (1, "judge"), "offtopic": (1, "guardrail"),
                                                     "retail": (0, None)}
EXEMPLARS = Path(__file__).resolve().with_name("training")
#: Training texts written for this desk (all dev): retail turns, off-topic turns, attacks, and
#: conversation turns on and off topic.
WRITTEN = Path(__file__).resolve().with_name("texts")
SEED = 20261201
#: Most items taken from one public set (or one part of it) for training: what two shared cores
#: embed and fit in minutes. A sample of at most `_POOL` in seeded order, cut to `PER_SET`.
PER_SET = 600
_POOL = 1500


@dataclass(frozen=True)
class Example:
    text: str
    label: int
    source: str
    #: Tags of a desk case (lang, topic), or a public set's `part`, for the figures broken down by them.
    tags: dict[str, str] = field(default_factory=dict)


@dataclass
class Corpus:
    train: list[Example]
    #: The desk's `test` split and the evaluate-only sets: never trained on.
    held_out: list[Example]


def _sample(texts: list[str], n: int, salt: str) -> list[str]:
    unique = list(dict.fromkeys(t for t in texts if t.strip()))
    if len(unique) <= n:
        return unique
    return random.Random(f"{SEED}:{salt}").sample(unique, min(_POOL, len(unique)))[:n]


def sampled_by(items: list[Item], n: int | None, group: Callable[[Item], str]) -> list[Item]:
    """At most `n` items of each group, seeded by the group's name (a quick smoke build), or all."""
    if n is None:
        return items
    by_group: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_group[group(item)].append(item)
    out = []
    for name, members in sorted(by_group.items()):
        out += members if len(members) <= n else random.Random(f"sample:{name}").sample(members, n)
    return out


def _examples(texts: Iterable[str], label: int, source: str) -> list[Example]:
    return [Example(t, label, source) for t in texts]


def _gandalf(root: Path) -> list[Example]:
    # All stay labelled attacks; the tag only splits the card's figures (training reads text and
    # label): a prompt in none of the set's attack categories is often small talk typed into the game.
    return [Example(text, 1, "gandalf", {"part": "in an attack category" if categories else "in no attack category"})
            for text, categories in datasets.gandalf_categories(root).items()]


def desk_cases() -> list[tuple[Example, str, Guard | None]]:
    """Every desk case the models may read, as (example, split, the guard it labels; None = both)."""
    out: list[tuple[Example, str, Guard | None]] = []
    for name, label in (("attacks.yaml", 1), ("legit.yaml", 0)):
        for case in yaml.safe_load((JUDGE_CASES / name).read_text("utf-8"))["cases"]:
            tags = {k: str(v) for k, v in case.items() if k in ("lang", "topic", "category", "source")}
            # A legit case is on topic for the Guardrail too; an attack says nothing about topic.
            out.append((Example(case["text"], label, f"desk:{name}", tags), case["split"],
                        None if label == 0 else "judge"))
    files: tuple[tuple[Path, Guard], ...] = ((GUARDRAIL_CASES, "guardrail"), (JUDGE_MODEL_CASES, "judge"))
    for path, guard in files:
        for case in yaml.safe_load(path.read_text("utf-8"))["cases"]:
            tags = {k: str(v) for k, v in case.items() if k in ("lang", "topic")}
            out.append((Example(case["text"], int(case["expect"] == "block"), f"desk:{path.stem}", tags),
                        case["split"], guard))
    for path, case in probe_cases():
        if path.name in UNTRAINED and case["split"] == "dev":
            continue
        label, only = _PROBE_KINDS[case["kind"]]
        tags = {k: str(case[k]) for k in ("lang", "kind", "family")} | {"file": path.name}
        if path.name in GUARDRAIL_ONLY:
            only = "guardrail"
        out.append((Example(case["text"], label, "desk:probes", tags), case["split"], only))
    return out


def probe_cases() -> list[tuple[Path, dict[str, Any]]]:
    """Every case of every probe file, both splits, with the file it came from."""
    return [(path, case) for path in PROBES for case in yaml.safe_load(path.read_text("utf-8"))["cases"]]


def exemplar_texts() -> dict[str, list[str]]:
    """The hand-written exemplar files (all dev data), by side."""
    judge = yaml.safe_load((EXEMPLARS / "attack_exemplars.yaml").read_text("utf-8"))
    guard = yaml.safe_load((EXEMPLARS / "guardrail_exemplars.yaml").read_text("utf-8"))
    return {"attack": [e["text"] for items in judge["attacks"].values() for e in items],
            "benign": [e["text"] for e in judge["benign"]],
            "on_topic": [e["text"] for e in guard["on_topic"]],
            "off_topic": [e["text"] for e in guard["off_topic"]]}


#: A conversation turn's label from its own `side`: on topic (allow) or off topic (block).
_SIDES = {"on_topic": 0, "off_topic": 1}


def written(guard: Guard) -> list[Example]:
    """The desk's written training texts, labelled for `guard`. Attacks teach the Judge only; the
    conversation turns (each on or off topic) the Guardrail only, because the Judge's committed
    weights were trained before them and its card must rebuild byte for byte; a Judge retrained
    later may read them as harmless text."""
    labels: dict[str, dict[Guard, int | None]] = {"retail": {"judge": 0, "guardrail": 0},
                                                  "off_topic": {"judge": 0, "guardrail": 1},
                                                  "attacks": {"judge": 1},
                                                  "conversation": {"guardrail": None}}
    out = []
    for name, by_guard in labels.items():
        if guard not in by_guard:
            continue
        for item in yaml.safe_load((WRITTEN / f"{name}.yaml").read_text("utf-8"))["texts"]:
            tags = {k: str(v) for k, v in item.items() if k != "text"}
            given = by_guard[guard]
            label = _SIDES[item["side"]] if given is None else given
            out.append(Example(item["text"], label, f"desk:written-{name}", tags))
    return out


#: Judge texts made of a written retail turn followed by a second written text: an attack after a
#: genuine order question is still an attack, and two harmless turns together are still harmless.
COMPOSED = 300


def composed(examples: list[Example]) -> list[Example]:
    """`COMPOSED` retail+attack (block) and as many retail+retail (allow) texts, seeded."""
    rng = random.Random(f"{SEED}:composed")
    retail = [e.text for e in examples if e.source == "desk:written-retail"]
    attacks = [e.text for e in examples if e.source == "desk:written-attacks"]
    return ([Example(f"{rng.choice(retail)} {a}", 1, "desk:composed") for a in rng.sample(attacks, COMPOSED)]
            + [Example(f"{rng.choice(retail)} {r}", 0, "desk:composed") for r in rng.sample(retail, COMPOSED)])


def _public(guard: Guard, root: Path) -> list[Example]:
    labels = scope().public_labels
    on_intents = set(labels["clinc150"]["on_topic"])
    clinc = datasets.clinc_part(root, "train") + datasets.clinc_part(root, "oos_train")
    bank = [t for t, c in datasets.banking77(root, "train") if c not in labels["banking77"]["ambiguous"]]
    tau = datasets.tau_user_turns(root)
    dialogue = _sample([t for t, _ in datasets.task_dialogue_turns(root)], PER_SET, "dialogue")
    xsid = _sample([t for t, _ in datasets.xsid_utterances(root, "valid")], PER_SET, "xsid")
    if guard == "judge":
        return (_examples(datasets.jailbreakbench_prompts(root), 1, "jailbreakbench")
                + _gandalf(root)
                + _examples(datasets.giskard_injections(root), 1, "giskard")
                + _examples(datasets.bipia_code_attacks(root), 1, "bipia-code")
                + _examples(tau, 0, "tau-bench") + _examples(_sample(bank, PER_SET, "bank"), 0, "banking77")
                + _examples(_sample([t for t, _ in clinc], PER_SET, "clinc"), 0, "clinc150")
                + _examples(dialogue, 0, "task-dialogue") + _examples(xsid, 0, "xsid"))
    on = _sample([t for t, i in clinc if i in on_intents], PER_SET, "clinc-on")
    off = _sample([t for t, i in clinc if i not in on_intents], PER_SET, "clinc-off")
    return (_examples(tau, 0, "tau-bench") + _examples(on, 0, "clinc150") + _examples(off, 1, "clinc150")
            + _examples(_sample(bank, PER_SET, "bank")[: PER_SET // 2], 1, "banking77")
            + _examples(dialogue, 1, "task-dialogue") + _examples(xsid, 1, "xsid"))


def corpus(guard: Guard, root: Path = datasets.DEFAULT_ROOT) -> Corpus:
    dev, held_out = list[Example](), list[Example]()
    for example, split, only in desk_cases():
        if guard == "judge" and example.tags.get("file") in GUARDRAIL_ONLY:
            continue
        if only not in (None, guard):
            if guard == "judge" and example.label == 1:  # off-topic text is harmless to the Judge
                example = Example(example.text, 0, example.source, example.tags)
            else:
                continue
        (dev if split == "dev" else held_out).append(example)
    if guard == "judge":
        held_out += _examples(datasets.tensor_trust_attacks(root), 1, "tensor-trust")
    test_texts = {normalise(e.text) for e in held_out if e.source.startswith("desk:")}

    def unseen(examples: list[Example]) -> list[Example]:
        return [e for e in examples if normalise(e.text) not in test_texts]

    train = _public(guard, root)
    ex = exemplar_texts()
    sides = (("attack", 1), ("benign", 0)) if guard == "judge" else (("on_topic", 0), ("off_topic", 1))
    for side, label in sides:
        train += _examples(ex[side], label, "desk:exemplars")
    train += written(guard)
    if guard == "judge":  # the Guardrail's exemplars are harmless text for the Judge
        # Composed from cleared texts only: a `test` text inside a composed one is not equal to it,
        # so the final filter (and `splits.leaked`) would not see it.
        train += composed(unseen(train)) + _examples(ex["on_topic"] + ex["off_topic"], 0, "desk:exemplars")
    return Corpus(unseen(_dedupe(train + dev)), held_out)


def _dedupe(examples: list[Example]) -> list[Example]:
    seen: set[str] = set()
    out = []
    for e in examples:
        key = normalise(e.text)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out
