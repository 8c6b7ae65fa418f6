"""Every Judge and Guardrail pattern answers within 50 ms on any 64 KiB text: a correctness bound.

A pattern that backtracks stalls the Judge's event loop and times out every customer's turn
(issue 12: 12 s on one message). Linear patterns take ~1 ms here on 64 KiB; 50 ms leaves room for a
busy machine while a quadratic one (seconds) still fails. Each pattern is compiled once, by the
same engine the Judge uses for it, and timed on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from guards.guardrail.scope import scope
from guards.judge import RuleSet
from guards.judge import decoders as judge_decoders
from guards.judge.rules import Patterns
from guards.tests.adversarial import MAX_INPUT_CHARS, slowest_search

BUDGET_S = 0.050
RULES = RuleSet.load()


def _judge_patterns() -> list[tuple[str, str, Callable[[str], object]]]:
    """(id, pattern, search) for every rule pattern (the Guardrail's requests too), fast-path pattern
    and decoder pattern."""
    found: list[tuple[str, str, Callable[[str], object]]] = []
    for rule in [*RULES.rules, *scope().requests]:
        for index, pattern in enumerate(rule.patterns):
            found.append((f"{rule.id}[{index}]", pattern, Patterns([pattern]).search))
    fast = RULES.fast_path
    for kind, patterns in (("require", fast.require), ("deny", fast.deny)):
        for index, pattern in enumerate(patterns):
            found.append((f"{fast.id}.{kind}[{index}]", pattern, Patterns([pattern]).search))
    found.append((f"{fast.id}.charset", fast.charset, re.compile(fast.charset).match))
    for name, value in vars(judge_decoders).items():
        if isinstance(value, re.Pattern):  # the decoders scan the whole text: findall is their cost
            found.append((f"decoders.{name}", value.pattern, value.findall))
    return found


JUDGE = _judge_patterns()


def test_the_inputs_are_as_long_as_a_guard_accepts() -> None:
    from pipeline.core.settings import Settings

    assert Settings.model_fields["guard_max_body_bytes"].default == MAX_INPUT_CHARS


@pytest.mark.parametrize(("pattern", "search"), [(p, s) for _, p, s in JUDGE], ids=[i for i, _, _ in JUDGE])
def test_every_judge_pattern_is_fast_on_adversarial_input(pattern: str, search: Callable[[str], object]) -> None:
    elapsed, text = slowest_search(search, pattern, BUDGET_S)
    assert elapsed <= BUDGET_S, f"{elapsed * 1000:.0f} ms on {text}"


def test_the_quadratic_input_of_issue_12_is_caught_by_the_harness() -> None:
    """The harness must be able to fail: the old e-mail pattern under `re` is slow even on 8 KiB."""
    backtracking = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+['’]s?\s+(?:orders?)")
    elapsed, _ = slowest_search(backtracking.search, backtracking.pattern, BUDGET_S, size=8 * 1024)
    assert elapsed > BUDGET_S
