"""Case files: every case carries its split; ours are split half and half within each category."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from evals.casefiles import CASES_DIR, CaseFileError, load_suite

DESK = {"tasks.yaml": "kind", "isolation.yaml": "style", "offtopic.yaml": "category"}


def test_every_replayed_case_has_a_split() -> None:
    suite = load_suite()
    cases = [*suite.tasks, *suite.isolation, *suite.attacks, *suite.legit, *suite.offtopic]
    assert cases and {c.split for c in cases} == {"dev", "test"}
    assert suite.offtopic and all(c.section == "offtopic" and c.expect == "block" for c in suite.offtopic)


@pytest.mark.parametrize(("name", "key"), list(DESK.items()))
def test_desk_cases_split_evenly_within_each_category(name: str, key: str) -> None:
    cases = yaml.safe_load((CASES_DIR / "desk" / name).read_text(encoding="utf-8"))["cases"]
    per: dict[str, Counter[str]] = {}
    for case in cases:
        per.setdefault(case[key], Counter())[case["split"]] += 1
    for category, counts in per.items():
        assert abs(counts["test"] - counts["dev"]) <= 1 and counts["test"] >= counts["dev"], (category, counts)


def _copy_cases(tmp_path: Path) -> Path:
    for path in CASES_DIR.glob("*/*.yaml"):
        target = tmp_path / path.relative_to(CASES_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def test_a_case_without_split_names_its_file_and_case(tmp_path: Path) -> None:
    root = _copy_cases(tmp_path)
    path = root / "desk" / "offtopic.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["cases"][2]["split"]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(CaseFileError, match=rf"offtopic\.yaml: case {data['cases'][2]['id']} has no `split`"):
        load_suite(root)


def test_a_bad_split_value_names_its_file_and_case(tmp_path: Path) -> None:
    root = _copy_cases(tmp_path)
    path = root / "desk" / "tasks.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["cases"][0]["split"] = "train"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(CaseFileError, match=rf"tasks\.yaml: case {data['cases'][0]['id']}: split"):
        load_suite(root)
