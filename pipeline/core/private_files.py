"""Files only their owner may read (keys, generated secrets): written 0600 from the first byte.

Both helpers write into a temporary file that `mkstemp` creates with mode 0600 beside the target,
then move it into place in one step, so the content never sits in a wider file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def read_private_file(path: Path, create: Callable[[], str]) -> str:
    """The text of the private file at `path`; written there (0600) from `create()` if absent.

    Safe under races: written private from the first byte, then linked into place; link() fails
    if another process won the race, and then its file is the one everybody reads.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".private-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(create())
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    if path.stat().st_mode & 0o077:
        raise ValueError(f"{path} is readable by other users; make it private (chmod 600) or delete it")
    return path.read_text(encoding="utf-8")


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text`, atomically, as a file only its owner can read (0600)."""
    # mkstemp opens with O_CREAT | O_EXCL and mode 0600: the secrets never sit in a wider file.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
