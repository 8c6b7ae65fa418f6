"""The one place the recall cut-offs are applied (filter_cases.yaml)."""

from __future__ import annotations

from pathlib import Path

import yaml

from pipeline.memory.filtering import filter_recall
from pipeline.memory.records import Memory

CASES = yaml.safe_load(Path(__file__).with_name("filter_cases.yaml").read_text())


def _found() -> list[Memory]:
    return [Memory(id=f"m{i}", text="x" * case["chars"], score=case["score"])
            for i, case in enumerate(CASES["memories"])]


def test_each_memory_is_kept_or_dropped_with_its_reason() -> None:
    recall = filter_recall(_found(), min_score=CASES["min_score"], max_chars=CASES["max_chars"])
    fate = {m.id: "kept" for m in recall.kept} | {d.id: d.why for d in recall.dropped}
    assert fate == {f"m{i}": case["expect"] for i, case in enumerate(CASES["memories"])}


def test_dropped_entries_report_score_and_length() -> None:
    recall = filter_recall(_found(), min_score=CASES["min_score"], max_chars=CASES["max_chars"])
    by_id = {f"m{i}": case for i, case in enumerate(CASES["memories"])}
    for dropped in recall.dropped:
        assert (dropped.score, dropped.chars) == (by_id[dropped.id]["score"], by_id[dropped.id]["chars"])


def test_kept_memories_come_best_first() -> None:
    recall = filter_recall(list(reversed(_found())), min_score=0.0, max_chars=10_000)
    scores = [m.score for m in recall.kept]
    assert scores == sorted(scores, reverse=True)
    assert len(scores) == len(CASES["memories"])
