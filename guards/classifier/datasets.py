"""Readers of the public development sets in `/work/shared/datasets/`.

The trainer (`guards/classifier/data.py`) builds the guards from these and measures them with
each set held out in turn; tensor-trust has no licence and is only ever evaluated on. Which
CLINC150 intents count as on-topic, neutral or off-topic for an order-support desk is decided
here, once, with the reason next to each list.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import yaml

#: `shared/datasets` beside the repository (where CI lays it), else the workplace's copy.
_BESIDE = Path(__file__).resolve().parents[3] / "shared" / "datasets"
DEFAULT_ROOT = _BESIDE if _BESIDE.is_dir() else Path("/work/shared/datasets")

#: CLINC150 intents a shop's support desk must serve: "order_status" (where is my package) and
#: "order" (a customer wanting to order something from us: on topic, even if the agent cannot
#: place orders itself).
CLINC_ON_TOPIC = frozenset({"order_status", "order"})
#: Conversational intents that occur inside any support conversation ("hello", "yes", "thanks",
#: "what can I ask you", "are you a bot"): the desk allows them, so they are scored neither as
#: on-topic shop requests nor as off-topic; they are reported separately.
CLINC_NEUTRAL = frozenset({
    "greeting", "goodbye", "thank_you", "yes", "no", "maybe", "cancel", "repeat",
    "what_can_i_ask_you", "are_you_a_bot", "who_do_you_work_for",
})


def _clinc(root: Path) -> dict[str, list[list[str]]]:
    data: dict[str, list[list[str]]] = json.loads((root / "clinc150" / "data_full.json").read_text())
    return data


def clinc_split(root: Path = DEFAULT_ROOT) -> dict[str, list[str]]:
    """CLINC150 test split as on_topic / neutral / off_topic (in-scope others) / oos."""
    data = _clinc(root)
    out: dict[str, list[str]] = {"on_topic": [], "neutral": [], "off_topic": [], "oos": []}
    for text, intent in data["test"]:
        key = "on_topic" if intent in CLINC_ON_TOPIC else "neutral" if intent in CLINC_NEUTRAL else "off_topic"
        out[key].append(text)
    out["oos"] = [text for text, _ in data["oos_test"]]
    return out


def clinc_part(root: Path, part: str) -> list[tuple[str, str]]:
    """One list of `data_full.json` (`train`, `val`, `test`, `oos_*`) as (text, intent)."""
    return [(text, intent) for text, intent in _clinc(root)[part]]


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def task_dialogue_turns(root: Path = DEFAULT_ROOT) -> list[tuple[str, str]]:
    """(text, domain) of the SGD/Taskmaster turns that state an intent or ask (the clear ones),
    without Taskmaster's "completely off topic" coffee scenario."""
    out = []
    for row in _jsonl(root / "task-dialogue-user-turns" / "user_turns.jsonl"):
        acts = row.get("acts")
        if isinstance(acts, list) and not {"INFORM_INTENT", "REQUEST"} & set(acts):
            continue
        if "off topic" in str(row.get("scenario", "")).lower():
            continue
        out.append((str(row["text"]), str(row["domain"])))
    return out


def xsid_utterances(root: Path = DEFAULT_ROOT, split: str | None = None) -> list[tuple[str, str]]:
    """(text, lang) of xSID (alarms, weather, music, ...: all off topic), optionally one split."""
    rows = _jsonl(root / "xsid" / "utterances.jsonl")
    return [(str(r["text"]), str(r["lang"])) for r in rows if split is None or r["split"] == split]


def tensor_trust_attacks(root: Path = DEFAULT_ROOT) -> list[str]:
    """Distinct Tensor Trust attacks. No licence: evaluate on them, never train or copy them."""
    return [str(r["text"]) for r in _jsonl(root / "tensor-trust" / "attacks_dedup.jsonl")]


def bipia_code_attacks(root: Path = DEFAULT_ROOT) -> list[str]:
    """BIPIA's code-injection instructions (requests to add malicious code; never run them).
    Its text instructions are harmless alone ("What is the capital of Brazil?") and are not used."""
    return [str(r["text"]) for r in _jsonl(root / "bipia" / "attacks.jsonl") if r["kind"] == "code"]


def bipia_contexts(root: Path = DEFAULT_ROOT, kind: str = "table", split: str = "train") -> list[str]:
    """BIPIA's clean e-mail or table contexts (invoices, receipts, Markdown tables): long harmless
    documents. The files wrap each value in a literal pair of quotes, removed here."""
    out = []
    for row in _jsonl(root / "bipia" / "benchmark" / kind / f"{split}.jsonl"):
        text = str(row["context"]).strip()
        out.append(text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"" else text)
    return out


def tau_user_turns(root: Path = DEFAULT_ROOT) -> list[str]:
    lines = (root / "tau-bench-retail" / "user_turns.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


def banking77(root: Path = DEFAULT_ROOT, part: str = "test") -> list[tuple[str, str]]:
    with (root / "banking77" / f"{part}.csv").open(encoding="utf-8", newline="") as fh:
        return [(row["text"], row["category"]) for row in csv.DictReader(fh)]


def giskard_injections(root: Path = DEFAULT_ROOT) -> list[str]:
    path = root / "giskard-prompt-injections" / "prompt_injections.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        return [row["prompt"] for row in csv.DictReader(fh)]


def jailbreakbench_prompts(root: Path = DEFAULT_ROOT) -> list[str]:
    """Distinct attack prompts (never the `response` fields, which hold harmful output)."""
    seen: dict[str, None] = {}
    for path in sorted((root / "jailbreakbench").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            for record in data.get("jailbreaks", []):
                if record.get("prompt"):
                    seen.setdefault(record["prompt"], None)
    return list(seen)


def gandalf_previews(root: Path = DEFAULT_ROOT) -> list[str]:
    """Distinct Gandalf player prompts (password extraction attempts; previews cut at ~100 chars)."""
    return list(gandalf_categories(root))


def gandalf_categories(root: Path = DEFAULT_ROOT) -> dict[str, frozenset[str]]:
    """Each distinct Gandalf prompt with the attack categories its hand labels put it in (often none:
    a label says whether a prompt is of that file's category, and players also typed small talk)."""
    seen: dict[str, set[str]] = {}
    for path in sorted((root / "gandalf" / "attack_classification_labels").glob("*.yaml")):
        for item in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).values():
            categories = seen.setdefault(str(item["text_preview"]), set())
            if item["label"] is True:
                categories.add(path.stem)
    return {text: frozenset(categories) for text, categories in seen.items()}
