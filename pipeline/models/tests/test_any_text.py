"""Whatever a customer types, the offline guards answer it with a verdict.

A guard that raises on odd input ends the turn with an error event: safe, but the customer gets no
answer. So every text the sanitizer lets through must reach a verdict from the Judge (patterns,
decoders, respelling, fast path, model) and from the Guardrail, in any script, with control
characters, emoji sequences, lone combining marks, look-alike letters and half-encoded fragments.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guards.judge import JudgeEngine, RuleSet
from guards.judge.model_tier import LlmJudgeTier
from guards.sanitizer import sanitize
from pipeline.core.settings import Settings
from pipeline.guardrail import Guardrail
from pipeline.models.factory import build_llm

#: Fragments that exercise the decoders and the fast path when strung together at random.
FRAGMENTS = ("ORD-10234", "ORD-", " ", "ignore", "base64:", "aGVsbG8gd29ybGQ=", "0x41", "&#65;", "%41",
             "\\u0041", "\u200b", "\u202e", "\u0301", "👍", "👨‍👩‍👧", "🏳️‍🌈", "?", "!", "é", "ß", "İ", "Σ", "ꓮ",
             "ｏｒｄｅｒ", "𝖔𝖗𝖉𝖊𝖗", "田中", "ثم", "בְּ", "'; DROP TABLE", "<script>", "{{7*7}}", "$(id)",
             "\t", "\n", "1e309", "NaN", ".-- .... . .-. .", "01001000", "zalgơ̴̧̭", "ᚠᛇᚻ")

TEXTS = st.one_of(st.text(max_size=300), st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))


class Guards:
    """The offline Judge engine and Guardrail on one event loop, as the desk and the Judge build them."""

    def __init__(self, make_settings: Callable[..., Settings]) -> None:
        config = make_settings(supportdesk_model="offline")
        rules = RuleSet.load()
        self.config = config
        self.judge = JudgeEngine(rules, LlmJudgeTier(build_llm(config, "judge")))
        self.guardrail = Guardrail(build_llm(config, "guardrail"), rules.fast_path)
        self.loop = asyncio.new_event_loop()

    def verdicts(self, text: str) -> tuple[str, str] | None:
        cleaned = sanitize(text, max_chars=self.config.max_message_chars,
                           max_bytes=self.config.max_message_bytes)
        if cleaned.rejected:
            return None
        judged = self.loop.run_until_complete(self.judge.decide(cleaned.text))
        checked = self.loop.run_until_complete(self.guardrail.check(cleaned.text))
        return judged.verdict, checked.verdict.verdict


@pytest.fixture(scope="module")
def guards(make_settings: Callable[..., Settings]) -> Iterator[Guards]:
    built = Guards(make_settings)
    yield built
    built.loop.close()


def test_every_accepted_text_gets_a_verdict_from_both_guards(guards: Guards) -> None:
    @settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=TEXTS)
    def each(text: str) -> None:
        verdicts = guards.verdicts(text)
        assert verdicts is None or all(v in ("allow", "block") for v in verdicts)

    each()
