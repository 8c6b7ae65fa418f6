"""The REPL's prompt reads on its own thread; Ctrl-C there must end the chat, whichever thread takes it."""

from __future__ import annotations

import asyncio
import signal
import threading

import pytest
from rich.console import Console

from cli import chat


def test_ctrl_c_taken_by_another_thread_still_ends_the_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    # The kernel may hand a process's SIGINT to any thread; here it goes to the reader thread, as
    # it did once in a full `make test` (the chat then waited on, asleep in its selector).
    def never_typed(_console: Console, _prompt: str) -> str:
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        threading.Event().wait(10)
        return ""

    monkeypatch.setattr(Console, "input", never_typed)
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN under a background CI shell

    async def prompt() -> str:
        main = asyncio.current_task()
        assert main is not None
        asyncio.get_running_loop().call_later(10, main.cancel)  # a test that fails must not hang
        try:
            await chat._read_line(Console(), "you› ")
        except KeyboardInterrupt:
            return "left at the prompt"
        return "went on waiting"

    try:
        outcome = asyncio.run(prompt())
    except KeyboardInterrupt:  # asyncio.run's own handler, woken only by the timeout
        outcome = "cancelled 10 s later"
    assert outcome == "left at the prompt"
    assert signal.getsignal(signal.SIGINT) == before  # the prompt puts the handler back
