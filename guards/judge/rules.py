"""The Judge's rule data (`rules.yaml`): validated on load, compiled once, matched on the hot path.

Patterns run on RE2 (`google-re2`), whose matching time is linear in the text: a backtracking
pattern cannot stall the Judge's event loop, whatever a message holds (an unanchored `[\\w.+-]+@`
took 12 s on 60,000 letters under `re`). RE2 has no look-arounds or back-references; the few
patterns that need one start with the comment `(?#stdlib ...)` saying why, run on Python's `re`,
and are timed like every other pattern on 64 KiB adversarial texts (guards/tests). Note RE2's
`\\w`, `\\b` and `\\s` are ASCII: write non-ASCII letters out (`[cç]`), as the rules do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property
from importlib import resources
from pathlib import Path

import re2
import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from guards.schema import Verdict
from pipeline.core.errors import ConfigError
from pipeline.core.ids import WRITTEN_PATTERN
from pipeline.core.replies import wordless_reply

#: Marks a pattern that needs Python's `re` (a look-around); the comment must say why.
STDLIB_MARK = "(?#stdlib"
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # an invalid pattern is reported once, as a ConfigError


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, ignored_types=(cached_property,))


def _joined(patterns: list[str]) -> str:
    return "|".join(f"(?:{p})" for p in patterns)


class Patterns:
    """One rule's patterns as (at most) two compiled alternations: RE2, and the marked `re` few."""

    def __init__(self, patterns: list[str]) -> None:
        linear = [p for p in patterns if not p.startswith(STDLIB_MARK)]
        marked = [p for p in patterns if p.startswith(STDLIB_MARK)]
        try:
            self._linear = re2.compile("(?m)" + _joined(linear), _RE2_OPTIONS) if linear else None
        except re2.error as exc:
            raise ValueError(f"not an RE2 pattern ({exc}): {linear}") from None
        self._marked = re.compile(_joined(marked), re.MULTILINE) if marked else None
        self.groups = sum(rx.groups for rx in (self._linear, self._marked) if rx is not None)

    def search(self, text: str) -> bool:
        return any(rx is not None and rx.search(text) is not None for rx in (self._linear, self._marked))


class Rule(_Frozen):
    id: str = Field(pattern=r"^[a-z]+\.[a-z_]+$")
    category: str
    description: str
    triggers: list[str] = Field(min_length=1)
    patterns: list[str] = Field(min_length=1)
    examples: list[str] = Field(min_length=1)
    counter_examples: list[str] = Field(default_factory=list)

    @cached_property
    def regex(self) -> Patterns:
        return Patterns(self.patterns)

    @model_validator(mode="after")
    def _compiles(self) -> Rule:
        # Compiled here, wherever a rule is read (the Judge's rules, the Guardrail's requests): a bad
        # pattern fails at load, not on a customer's message. Patterns are joined, so no groups.
        if self.regex.groups:
            raise ValueError(f"rule {self.id}: only (?:...) groups, its patterns are joined")
        return self

    def triggered(self, text: str) -> bool:
        return any(trigger in text for trigger in self.triggers)

    def hit(self, text: str) -> bool:
        return self.triggered(text) and self.regex.search(text)


def matching(rules: Sequence[Rule], variants: list[str]) -> list[Rule]:
    """The rules that any variant of a message hits, in their order."""
    return [rule for rule in rules if any(rule.hit(text) for text in variants)]


#: The words of a message, as the fast path's vocabulary lists them: runs of letters (so "what's"
#: is "what" and "s", "l'ordine" is "l" and "ordine") and runs of digits.
_WORD = re.compile(r"[^\W\d_]+|\d+")
_ORDER_ID = re.compile(rf"\b{WRITTEN_PATTERN}\b", re.IGNORECASE)
#: A number of at most this many digits is a quantity or a day ("2 weeks", "since the 3rd").
_SHORT_NUMBER_DIGITS = 2


class FastPath(_Frozen):
    """Ordinary shop questions the Judge allows without a model: shop-shaped and nothing odd."""

    id: str
    description: str
    max_chars: int = Field(gt=0)
    charset: str
    require: list[str] = Field(min_length=1)
    deny: list[str] = Field(min_length=1)
    #: Lines of space-separated words; a fast-pathed message uses no other word.
    vocabulary: list[str] = Field(min_length=1)
    examples: list[str] = Field(min_length=1)
    counter_examples: list[str] = Field(default_factory=list)

    @cached_property
    def words(self) -> frozenset[str]:
        return frozenset(word for line in self.vocabulary for word in line.split())

    def known_words_only(self, text: str) -> bool:
        """Every word of the lower-cased text (`variants(...)[0]`) is in the vocabulary, order ids and
        short numbers aside.

        The deny list names what an attack might say and can always miss a word ("which ones are
        going to Manchester, and to whom?"); a message made only of the vocabulary's shop and
        function words has no words left to carry an instruction in.
        """
        words = _WORD.findall(_ORDER_ID.sub(" ", text))
        return all(word in self.words or (word.isdigit() and len(word) <= _SHORT_NUMBER_DIGITS)
                   for word in words)

    @cached_property
    def _charset(self) -> re.Pattern[str]:
        return re.compile(self.charset)

    @cached_property
    def _require(self) -> Patterns:
        return Patterns(self.require)

    @cached_property
    def _deny(self) -> Patterns:
        return Patterns(self.deny)

    def compiled(self) -> tuple[object, ...]:
        """Every pattern compiled now, so a bad one fails at load rather than on a message."""
        return self._charset, self._require, self._deny

    def plain(self, variants: list[str]) -> bool:
        """Short enough, and no deny-listed word in the message or any view of it decoded.

        `variants[0]` is the lower-cased message. The Guardrail's order-id rule, which admits any
        script (and so a confusable-folded view of it), still requires this.
        """
        return len(variants[0]) <= self.max_chars and not any(self._deny.search(view) for view in variants)

    def allows(self, variants: list[str]) -> bool:
        """Plain, nothing decoded at all, in the fast path's charset and vocabulary, and shop-shaped."""
        text = variants[0]
        return (
            len(variants) == 1
            and self.plain(variants)
            and self._charset.match(text) is not None
            and self.known_words_only(text)
            and self._require.search(text)
        )

    def verdict(self, variants: list[str]) -> Verdict | None:
        """The allow both guards give a message this fast path takes, else None."""
        if not self.allows(variants):
            return None
        return Verdict(verdict="allow", reason=f"Allowed: {self.description}.", rules=[self.id], tier="fast_path")


def wordless_verdict(text: str) -> Verdict | None:
    """The allow both guards give a message that carries no instruction by its shape alone (a
    reaction, a labelled postcode: `pipeline/core/replies.py`), else None."""
    if (reply := wordless_reply(text)) is None:
        return None
    rule, reason = reply
    return Verdict(verdict="allow", reason=reason, rules=[rule], tier="fast_path")


class RuleSet(_Frozen):
    categories: dict[str, str] = Field(min_length=1)
    rules: list[Rule] = Field(min_length=1)
    fast_path: FastPath

    @model_validator(mode="after")
    def _consistent(self) -> RuleSet:
        ids = [rule.id for rule in self.rules] + [self.fast_path.id]
        if len(ids) != len(set(ids)):
            raise ValueError("rule ids must be unique")
        unknown = {rule.category for rule in self.rules} - set(self.categories)
        if unknown:
            raise ValueError(f"rules use undeclared categories {sorted(unknown)}")
        return self

    def matches(self, variants: list[str]) -> list[Rule]:
        """Rules matched by any variant, in file order."""
        return matching(self.rules, variants)

    @classmethod
    def load(cls, path: Path | None = None) -> RuleSet:
        """Load and validate `path`, by default the packaged `guards/judge/rules.yaml`."""
        try:
            if path is None:
                raw = resources.files("guards.judge").joinpath("rules.yaml").read_text(encoding="utf-8")
            else:
                raw = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"judge rules {path or 'rules.yaml'} are invalid: {exc}") from exc
        return cls.parse(raw, source=str(path or "rules.yaml"))

    @classmethod
    def parse(cls, raw: str, *, source: str = "rules.yaml") -> RuleSet:
        """Validate the text of a rules file (another revision's, say); `source` names it in errors."""
        try:
            ruleset = cls.model_validate(yaml.safe_load(raw))
            ruleset.fast_path.compiled()
        except (yaml.YAMLError, ValueError, re.error) as exc:
            raise ConfigError(f"judge rules {source} are invalid: {exc}") from exc
        return ruleset
