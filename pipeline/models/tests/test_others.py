"""Which messages name someone other than the customer (cases: `cases/others_cases.yaml`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pipeline.models.others import names_someone_else

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "others_cases.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:40] for c in CASES])
def test_names_someone_else(case: dict[str, Any]) -> None:
    assert names_someone_else(case["text"]) is case["names"]
