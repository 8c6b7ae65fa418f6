"""Order-id normalisation and note extraction (cases: `cases/extract_cases.yaml`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pipeline.models.extract import NOTE_MAX_CHARS, extract_note, find_order_ids, mentions_latest

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "extract_cases.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:40] for c in CASES])
def test_extract(case: dict[str, Any]) -> None:
    assert find_order_ids(case["text"]) == case["ids"]
    if "note" in case:
        assert extract_note(case["text"]) == case["note"]
    if "latest" in case:
        assert mentions_latest(case["text"]) is case["latest"]


def test_note_is_capped() -> None:
    note = extract_note("order 10042: " + "leave it by the shed " * 40)
    assert len(note) == NOTE_MAX_CHARS and note.endswith("…")
