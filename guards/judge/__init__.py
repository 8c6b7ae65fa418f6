"""Security Judge decision logic: rules data, decoders, the tiered engine and the LLM model tier."""

from guards.judge.engine import JudgeEngine, ModelTier, RulesOnly
from guards.judge.rules import RuleSet

__all__ = ["JudgeEngine", "ModelTier", "RuleSet", "RulesOnly"]
