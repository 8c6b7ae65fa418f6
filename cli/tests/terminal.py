"""A child process on a pseudo-terminal, driven like a person at a keyboard (stdlib only)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][A-Za-z0-9]|\r")


class Terminal:
    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: str, *, rows: int = 50,
                 cols: int = 140) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: becomes the program, with the pty as its controlling terminal
            os.chdir(cwd)
            os.execve(argv[0], list(argv), dict(env))
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.screen = ""  # everything shown so far, escape sequences removed
        self._seen = 0

    def _read(self, timeout_s: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout_s)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not chunk:
            return False
        self.screen += ANSI.sub("", chunk.decode("utf-8", "replace"))
        return True

    def expect(self, pattern: str, timeout_s: float = 60.0) -> re.Match[str]:
        """Wait for `pattern` in output that arrived after the previous match."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout_s
        while True:
            found = regex.search(self.screen, self._seen)
            if found:
                self._seen = found.end()
                return found
            if time.monotonic() > deadline or not self._read(min(0.2, max(0.0, deadline - time.monotonic()))):
                raise AssertionError(f"{pattern!r} not shown; the terminal shows:\n{self.screen[self._seen:]}")

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\r").encode())

    def interrupt(self) -> None:
        """Ctrl-C as a keyboard sends it: the terminal makes it a SIGINT for the foreground program."""
        os.write(self.fd, b"\x03")

    def wait(self, timeout_s: float = 60.0) -> int:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self._read(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
        self.kill()
        raise AssertionError(f"still running after {timeout_s} s; the terminal shows:\n{self.screen}")

    def kill(self) -> None:
        """Stop the child; safe to call again, and after `wait` gave up."""
        with suppress(ChildProcessError, ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        with suppress(OSError):
            os.close(self.fd)
