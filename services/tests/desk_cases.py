"""The desk's own case files (evals/cases/), shared by the service and client tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CASES = Path(__file__).resolve().parents[2] / "evals" / "cases"


def masker_cases(name: str) -> list[dict[str, Any]]:
    """Cases of `evals/cases/masker/<name>` that use the default (all types) configuration."""
    cases: list[dict[str, Any]] = yaml.safe_load((CASES / "masker" / name).read_text("utf-8"))["cases"]
    return [case for case in cases if "types" not in case]


def judge_cases(name: str) -> list[dict[str, Any]]:
    """Cases of `evals/cases/judge/<name>`, each with the file's `expect` verdict."""
    data = yaml.safe_load((CASES / "judge" / name).read_text("utf-8"))
    return [{**case, "expect": data["expect"]} for case in data["cases"]]
