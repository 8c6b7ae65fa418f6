"""The guards' case files (evals/cases/judge/, evals/cases/masker/) as the guard tests and benchmarks read them."""

from __future__ import annotations

from typing import Any

import yaml

from evals.casefiles import CASES_DIR


def masker_cases(name: str) -> list[dict[str, Any]]:
    """Cases of `evals/cases/masker/<name>` that use the default (all types) configuration."""
    cases: list[dict[str, Any]] = yaml.safe_load((CASES_DIR / "masker" / name).read_text("utf-8"))["cases"]
    return [case for case in cases if "types" not in case]


def judge_cases(name: str) -> list[dict[str, Any]]:
    """Cases of `evals/cases/judge/<name>`, each with the file's `expect` verdict."""
    data = yaml.safe_load((CASES_DIR / "judge" / name).read_text("utf-8"))
    return [{**case, "expect": data["expect"]} for case in data["cases"]]
