"""The Security Judge's decision: pattern tier, then the fast paths (a reaction without words, a
postcode with its label, a plain shop question), then the model tier.

The patterns read the decoded views, and those views again with the rules' own words put right
where two letters were swapped (`guards/judge/respell.py`). The model reads the message as typed
and then each view that reads as English the message disguises (`Views.plain`): spaced-out
letters, leetspeak, look-alike letters or accents on every vowel hide the words from a model that
sees only the typing.

Reasons are built from rule metadata only, and a model's reason that quotes the message is
replaced, so a verdict never echoes the customer's text back.
"""

from __future__ import annotations

from typing import Protocol

from guards.judge.decoders import DecodeLimits, Views, decode
from guards.judge.respell import Respeller
from guards.judge.rules import RuleSet, wordless_verdict
from guards.schema import Verdict

#: A model reason sharing this many consecutive characters with the message counts as an echo.
ECHO_CHARS = 24
_MODEL_BLOCK_REASON = "The message was judged unsafe by the security model."
_MODEL_ALLOW_REASON = "The message was judged safe by the security model."
#: A sentence hidden in base64, hex, binary, a cipher or upside-down letters: whatever it says, a
#: customer writes to a shop in plain text, and a hidden sentence is how attacks pass filters.
HIDDEN_TEXT_RULE = "obf.hidden_text"
_HIDDEN_TEXT_REASON = "The message hides text in an encoding or a cipher."


class ModelTier(Protocol):
    """The last tier: decides messages the rules neither block nor fast-path."""

    async def judge(self, text: str) -> Verdict: ...


def _echoes(reason: str, text: str) -> bool:
    folded, reason = " ".join(text.lower().split()), " ".join(reason.lower().split())
    if len(folded) < ECHO_CHARS:
        return bool(folded) and folded in reason
    return any(folded[i : i + ECHO_CHARS] in reason for i in range(len(folded) - ECHO_CHARS + 1))


class RulesOnly:
    """The model tier of a rules-only engine (reports, training's rule decisions, rule tests):
    `decide_rules` never asks it, so being asked is a bug and raises."""

    async def judge(self, text: str) -> Verdict:
        raise RuntimeError("a rules-only Judge engine was asked for a model verdict")


class JudgeEngine:
    def __init__(self, rules: RuleSet, model_tier: ModelTier, limits: DecodeLimits | None = None) -> None:
        self._rules = rules
        self._model = model_tier
        self._limits = limits or DecodeLimits()
        self._respeller = Respeller.from_patterns(pattern for rule in rules.rules for pattern in rule.patterns)

    def decide_rules(self, text: str) -> Verdict | None:
        """Pattern tier then fast path; None means only the model can decide."""
        return self._rules_verdict(text, decode(text, self._limits))

    def _rules_verdict(self, text: str, decoded: Views) -> Verdict | None:
        views = decoded.all
        hits = self._rules.matches([*views, *self._respeller.respelt(views)])
        if hits:
            labels = list(dict.fromkeys(self._rules.categories[rule.category] for rule in hits))
            return Verdict(
                verdict="block",
                reason=f"The message {'; it '.join(labels)}.",
                rules=[rule.id for rule in hits],
                tier="pattern",
            )
        if decoded.hidden:
            return Verdict(verdict="block", reason=_HIDDEN_TEXT_REASON, rules=[HIDDEN_TEXT_RULE], tier="pattern")
        return wordless_verdict(text) or self._rules.fast_path.verdict(views)

    async def decide(self, text: str) -> Verdict:
        decoded = decode(text, self._limits)
        decided = self._rules_verdict(text, decoded)
        if decided is not None:
            return decided
        typed = await self._ask_model(text, text)
        if typed.verdict == "block":
            return typed
        for view in decoded.plain:
            seen = await self._ask_model(view, text)
            if seen.verdict == "block":
                return seen
        return typed

    async def _ask_model(self, reading: str, message: str) -> Verdict:
        """The model's verdict on `reading` (the message or a view of it), its reason kept only when
        it quotes neither."""
        verdict = await self._model.judge(reading)
        if _echoes(verdict.reason, reading) or _echoes(verdict.reason, message):
            reason = _MODEL_BLOCK_REASON if verdict.verdict == "block" else _MODEL_ALLOW_REASON
            verdict = verdict.model_copy(update={"reason": reason})
        return verdict
