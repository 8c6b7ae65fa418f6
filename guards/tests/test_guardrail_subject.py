"""An announced change of subject: the part after it is found, and the offline model reads it alone."""

from __future__ import annotations

import pytest
import yaml

from guards.classifier.offline_llm import OfflineGuardrailLlm
from guards.guardrail.scope import SCOPE_FILE, Scope, scope

CHANGES = scope().subject_changes

#: Customers who change the subject to another shop question (written for this desk, dev).
RETAIL_AFTER_A_CHANGE = [
    "By the way, the jacket is a bit tight, can I swap it for a large?",
    "Thanks! By the way, it's a present for my mum's birthday, so it has to arrive by Friday.",
    "Out of curiosity, why does the tracking show two different couriers?",
    "Just curious, is the refund going back to the same card?",
    "On another note, my last parcel was left in the rain.",
    "ps: I moved house last month, is the new address on the order?",
    "By the way, I love the lamp, it looks great in the living room.",
    "Different question: what's your phone number for complaints?",
    "Por cierto, ¿el reembolso va a la misma tarjeta?",
    "顺便问一下，我的退款什么时候到账？",
]
#: Another subject after an order question (written for this desk, dev).
OFF_TOPIC_AFTER_A_CHANGE = [
    "My parcel came yesterday, thanks. By the way, do you know a good dentist near me?",
    "The refund is through, great. Random question: how does the stock market work?",
]


@pytest.mark.parametrize(("message", "after"), CHANGES.examples)
def test_the_part_after_the_last_change_is_found(message: str, after: str | None) -> None:
    assert CHANGES.after(message) == after


def test_a_broken_phrase_fails_at_load() -> None:
    raw = yaml.safe_load(SCOPE_FILE.read_text("utf-8"))
    raw["subject_changes"]["phrases"] = ["(by the way"]
    with pytest.raises(ValueError, match="not a pattern"):
        Scope.model_validate(raw)


@pytest.fixture(scope="module")
def guardrail() -> OfflineGuardrailLlm:
    return OfflineGuardrailLlm.build(subject_changes=CHANGES)


@pytest.mark.parametrize("message", OFF_TOPIC_AFTER_A_CHANGE)
def test_another_subject_after_an_order_is_blocked(guardrail: OfflineGuardrailLlm, message: str) -> None:
    """The whole message reads as an order; the part after the change decides."""
    assert guardrail.classifier.score(message) < guardrail.threshold
    assert guardrail.decide(message).verdict == "block"


@pytest.mark.parametrize("message", RETAIL_AFTER_A_CHANGE)
def test_a_shop_question_after_a_change_is_allowed(guardrail: OfflineGuardrailLlm, message: str) -> None:
    assert CHANGES.after(message) is not None
    assert guardrail.decide(message).verdict == "allow"


def test_without_a_change_the_score_is_the_whole_message(guardrail: OfflineGuardrailLlm) -> None:
    message = "Where is my order ORD-10042? It was due on Monday."
    assert CHANGES.after(message) is None
    assert guardrail.scored(message)[0] == guardrail.classifier.score(message)
