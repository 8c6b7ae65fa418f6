"""The REPL's prompt reads on its own thread; Ctrl-C must always reach the main thread."""

from __future__ import annotations

import asyncio
import signal

import pytest
from rich.console import Console

from cli import chat


def test_the_prompt_thread_never_takes_ctrl_c(monkeypatch: pytest.MonkeyPatch) -> None:
    # A SIGINT the kernel hands to the reader thread would not wake the main thread's selector.
    masks: list[set[int | signal.Signals]] = []

    def typed(_console: Console, _prompt: str) -> str:
        masks.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
        return "where is my parcel?"

    monkeypatch.setattr(Console, "input", typed)
    assert asyncio.run(chat._read_line(Console(), "you› ")) == "where is my parcel?"
    assert masks and signal.SIGINT in masks[0]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the main thread still takes it
