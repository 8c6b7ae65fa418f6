"""The "worth saving" rule over our own case file (policy_cases.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pipeline.memory.policy import worth_saving

CASES = yaml.safe_load(Path(__file__).with_name("policy_cases.yaml").read_text())


@pytest.mark.parametrize("text", CASES["keep"])
def test_standing_preferences_are_kept(text: str) -> None:
    assert worth_saving(text)


@pytest.mark.parametrize("text", CASES["skip"])
def test_one_off_messages_are_not_kept(text: str) -> None:
    assert not worth_saving(text)
