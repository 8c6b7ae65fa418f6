"""The agent's history is bounded and never starts on an orphaned tool call or result."""

from __future__ import annotations

import pytest
from google.genai import types

from pipeline.agent.support import bounded_history


def _user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _call() -> types.Content:
    return types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(name="t", args={}))])


def _result() -> types.Content:
    return types.Content(role="user", parts=[
        types.Part(function_response=types.FunctionResponse(name="t", response={"rows": []}))])


def _answer(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


TURNS = [_user("a"), _call(), _result(), _answer("A"), _user("b"), _call(), _result(), _answer("B"), _user("c")]


@pytest.mark.parametrize("limit", range(1, len(TURNS) + 2))
def test_bounded_history_starts_on_a_customer_message(limit: int) -> None:
    kept = bounded_history(TURNS, limit)
    assert len(kept) <= limit
    assert kept[0].role == "user" and kept[0].parts and kept[0].parts[0].text
    assert kept[-1] is TURNS[-1]
    assert kept == TURNS[len(TURNS) - len(kept):]
