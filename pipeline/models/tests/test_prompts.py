"""The memory block: what `render_memories` writes, `parse_memories` reads back, and nothing more."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pipeline.models.prompts import parse_memories, render_memories

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "memory_cases.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_memory_block_round_trip(case: dict[str, Any]) -> None:
    block = render_memories(case["memories"])
    expected = case.get("expected", [" ".join(m.split()) for m in case["memories"]])
    assert parse_memories("Where is my parcel?\n" + block) == expected
    assert (block == "") == (not expected)
    # Whatever a memory holds, the block stays one opening line, the intro, one line per memory
    # and one closing line.
    assert len(block.splitlines()) == (len(expected) + 3 if expected else 0)
    assert block.count("</untrusted_customer_notes>") == (1 if expected else 0)
