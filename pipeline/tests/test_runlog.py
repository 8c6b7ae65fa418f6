"""The run log: atomic, retained within limits, and never able to change an answer."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from pipeline.runlog import RunLog


def test_write_is_atomic_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    log = RunLog(tmp_path, keep=10, max_age_days=1)
    path = log.write("turn1", {"turn_id": "turn1", "events": [1, 2, 3]})
    assert path is not None and json.loads(path.read_text())["events"] == [1, 2, 3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["turn1.json"]


def test_write_failure_is_counted_not_raised(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    log = RunLog(blocker, keep=10, max_age_days=1)
    assert log.write("turn1", {}) is None
    assert log.write_failures == 1


@pytest.mark.parametrize(("count", "keep", "old", "left"), [(5, 3, 0, 3), (5, 10, 2, 3), (3, 10, 0, 3)])
def test_prune_enforces_count_and_age(tmp_path: Path, count: int, keep: int, old: int, left: int) -> None:
    log = RunLog(tmp_path, keep=keep, max_age_days=1)
    for i in range(count):
        path = log.write(f"t{i}", {})
        assert path is not None
        stamp = time.time() - (3 * 86400 if i < old else count - i)
        os.utime(path, (stamp, stamp))
    assert log.prune() == count - left
    assert len(list(tmp_path.glob("*.json"))) == left
