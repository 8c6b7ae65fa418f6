"""The Data Masker against the shop's own case files in evals/cases/masker/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from guards.masker import SUPPORTED_TYPES, Masker

CASES = Path(__file__).resolve().parents[2] / "evals" / "cases" / "masker"


def _cases(name: str) -> list[Any]:
    cases = yaml.safe_load((CASES / name).read_text("utf-8"))["cases"]
    return [pytest.param(case, id=case["id"]) for case in cases]


@pytest.fixture(scope="module")
def masker() -> Masker:
    return Masker(SUPPORTED_TYPES)


@pytest.mark.parametrize("case", _cases("detect.yaml"))
def test_pii_is_replaced_and_everything_else_kept(case: dict[str, Any], masker: Masker) -> None:
    text: str = case["text"]
    configured = Masker(case["types"]) if "types" in case else masker
    expected_spans: list[tuple[str, int, int]] = []
    pieces: list[str] = []
    cursor = 0
    for item in case["pii"]:
        start = text.index(item["value"], cursor)
        expected_spans.append((item["type"], start, start + len(item["value"])))
        pieces += (text[cursor:start], f"[{item['type']}]")
        cursor = start + len(item["value"])
    expected_text = "".join([*pieces, text[cursor:]])

    result = configured.mask(text)

    assert [(r.type, r.start, r.end) for r in result.redactions] == expected_spans
    assert result.text == expected_text


@pytest.mark.parametrize("case", _cases("leave_alone.yaml"))
def test_pii_free_text_comes_back_byte_identical(case: dict[str, Any], masker: Masker) -> None:
    result = masker.mask(case["text"])
    assert [(r.type, case["text"][r.start : r.end]) for r in result.redactions] == []
    assert result.text.encode() == case["text"].encode()


@pytest.mark.parametrize("types", [["EMAIL", "PASSPORT"], ["email"], ["PERSON"]])
def test_unknown_type_is_refused_at_construction(types: list[str]) -> None:
    with pytest.raises(ValueError, match="unknown PII types"):
        Masker(types)


@pytest.mark.parametrize("regions", [["XX"], ["us"], []])
def test_unknown_phone_region_is_refused_at_construction(regions: list[str]) -> None:
    with pytest.raises(ValueError, match="phone regions"):
        Masker(SUPPORTED_TYPES, phone_regions=regions)
