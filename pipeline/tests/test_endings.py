"""The error tree in `pipeline/core/errors.py` says how each exception ends a turn: checked against
`ending_for`, the one mapping, so the docstring cannot drift from the code."""

from __future__ import annotations

import asyncio
import inspect
import re

import pytest

import pipeline.core.errors as errors
from pipeline.endings import GENERIC_MESSAGE, Ending, ending_for, finish_with
from pipeline.events import ErrorEvent, Event, FinalEvent, Usage
from pipeline.recorder import TurnRecorder

# "    │   ├── GuardTimeout           error 504        ... because ..." -> (indent, name, ending)
TREE_LINE = re.compile(r"^(?P<indent>[ │├└─]*)(?P<name>[A-Z]\w+)\s+(?P<ending>error \d{3}|final \w+)\s")
DETAIL = "internal detail: host 127.0.0.1:5432, Traceback"
CLASSES = [cls for _, cls in inspect.getmembers(errors, inspect.isclass) if issubclass(cls, errors.SupportdeskError)]


def _documented() -> dict[str, tuple[str, str | None]]:
    """Each class in the docstring's tree: (how the turn ends, the class above it in the tree)."""
    tree: dict[str, tuple[str, str | None]] = {}
    open_at: dict[int, str] = {}
    for line in (errors.__doc__ or "").splitlines():
        found = TREE_LINE.match(line)
        if found:
            depth = len(found["indent"])
            open_at[depth] = found["name"]
            parent = max((d for d in open_at if d < depth), default=None)
            tree[found["name"]] = (found["ending"], open_at[parent] if parent is not None else None)
    return tree


def _raise(cls: type[errors.SupportdeskError]) -> errors.SupportdeskError:
    return cls(DETAIL, budget="tools") if cls is errors.BudgetExceeded else cls(DETAIL)


def _said(ending: Ending) -> str:
    return f"final {ending.fields['status']}" if ending.kind == "final" else f"error {ending.fields['code']}"


def test_the_tree_names_every_error_of_the_module() -> None:
    assert sorted(_documented()) == sorted(cls.__name__ for cls in CLASSES)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_the_docstring_says_how_the_turn_ends(cls: type[errors.SupportdeskError]) -> None:
    documented, parent = _documented()[cls.__name__]
    ending = ending_for(_raise(cls), where="agent")
    assert _said(ending) == documented
    base = cls.__bases__[0]
    assert parent == (None if base is Exception else base.__name__), "the tree's shape is the class hierarchy"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_the_customer_never_sees_the_detail(cls: type[errors.SupportdeskError]) -> None:
    exc = _raise(cls)
    fields = ending_for(exc, where="agent").fields
    assert DETAIL not in " ".join(str(value) for value in fields.values())
    if fields.get("message") is not None:
        assert fields["message"] == exc.user_message


def test_endings_outside_the_tree() -> None:
    unexpected = ending_for(KeyError(DETAIL))
    assert (unexpected.kind, unexpected.fields) == ("error", {"stage": "pipeline", "code": 502,
                                                              "message": GENERIC_MESSAGE})
    cancelled = ending_for(asyncio.CancelledError(), where="masker", cancelled=True)
    assert _said(cancelled) == "error 503" and cancelled.fields["stage"] == "masker"
    assert cancelled.fields["cancelled"] is True


def test_a_turn_ends_once_with_the_usage_at_its_end() -> None:
    seen: list[Event] = []
    recorder = TurnRecorder("t1", seen.append)
    recorder.step("agent", "started")
    usage = Usage(input_tokens=7, tool_calls=2)
    finish_with(recorder, errors.BudgetExceeded(DETAIL, budget="loop"), usage=usage)
    finish_with(recorder, errors.ModelUnavailable(DETAIL), usage=usage)  # already ended: nothing
    usage.tool_calls += 1
    assert [type(e) for e in seen[1:]] == [FinalEvent]
    final = seen[-1]
    assert isinstance(final, FinalEvent) and final.status == "capped" and final.reason == "budget: loop"
    assert final.usage == Usage(input_tokens=7, tool_calls=2)
    assert not any(isinstance(e, ErrorEvent) for e in seen)
