"""One run at a time per cell directory: a second ``bench`` or ``--resume`` is told who holds it."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from ..errors import UsageError
from .safeio import open_nofollow

__all__ = ["CellLock"]

LOCK_NAME = ".lock"


class CellLock:
    """An exclusive ``flock`` on ``<cell>/.lock`` for as long as the run writes the cell.

    The kernel drops the lock when its holder dies, so a killed run never leaves a stale lock.
    """

    def __init__(self, cell_dir: Path) -> None:
        self.path = cell_dir / LOCK_NAME
        self._fd: int | None = None

    def __enter__(self) -> CellLock:
        fd = open_nofollow(self.path, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise UsageError(
                f"another portbench run (pid {holder}) is writing {self.path.parent}; wait for "
                "it to finish or stop it, then resume"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
