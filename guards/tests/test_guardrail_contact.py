"""The contact-details fast path: an address or a phone number alone is on topic, and nothing rides on it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from guards.classifier.data import probe_cases
from guards.guardrail.requests import code_verdict
from guards.guardrail.scope import SCOPE_FILE, Scope, scope
from guards.judge.rules import RuleSet
from guards.masker import Masker

FAST_PATH = RuleSet.load().fast_path
SCOPE = scope()
CONTACT = SCOPE.contact_details
CASES = Path(__file__).resolve().parents[2] / "evals" / "cases"


def _attacks() -> list[str]:
    """Every attack and off-topic text of our case files, both splits: none may pass in code."""
    texts = [case["text"] for name in ("judge/attacks.yaml", "desk/offtopic.yaml")
             for case in yaml.safe_load((CASES / name).read_text("utf-8"))["cases"]]
    return texts + [case["text"] for _, case in probe_cases() if case["kind"] != "retail"]


@pytest.mark.parametrize("text", CONTACT.examples)
def test_a_message_of_contact_details_is_allowed_in_code(text: str) -> None:
    verdict = code_verdict(text, FAST_PATH, SCOPE)
    assert verdict is not None
    assert (verdict.verdict, verdict.tier, verdict.rules) == ("allow", "fast_path", [CONTACT.id])


@pytest.mark.parametrize("text", CONTACT.counter_examples)
def test_words_beside_or_inside_the_details_leave_the_message_to_the_model(text: str) -> None:
    assert not CONTACT.allows(text, FAST_PATH)


def test_no_attack_or_off_topic_case_passes_as_contact_details() -> None:
    assert [text for text in _attacks() if CONTACT.allows(text, FAST_PATH)] == []


@pytest.mark.parametrize("text", ["Οδός Ερμού 12, 10563 Αθήνα", "Οδός Πανεπιστημίου 30, 10679 Αθήνα"])
def test_details_in_scripts_the_deny_list_cannot_read_go_to_the_model(text: str) -> None:
    assert not CONTACT.allows(text, FAST_PATH)


def test_a_message_longer_than_the_fast_paths_limit_goes_to_the_model() -> None:
    address = CONTACT.examples[0]
    long_text = ", ".join([address] * (FAST_PATH.max_chars // len(address) + 1))
    assert CONTACT.allows(address, FAST_PATH) and not CONTACT.allows(long_text, FAST_PATH)


def test_labels_are_lower_case_so_they_can_match() -> None:
    assert all(label == label.lower() for label in CONTACT.labels)


def test_the_detectors_are_built_with_the_scope_not_on_a_message() -> None:
    fresh = Scope.model_validate(yaml.safe_load(SCOPE_FILE.read_text("utf-8")))
    assert isinstance((fresh.contact_details.__pydantic_private__ or {}).get("_masker"), Masker)


def test_the_scope_needs_its_contact_details() -> None:
    raw = yaml.safe_load(SCOPE_FILE.read_text("utf-8"))
    del raw["contact_details"]
    with pytest.raises(ValueError, match="contact_details"):
        Scope.model_validate(raw)
