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

    The kernel drops the lock when its holder dies, so a killed run's lock is taken over by
    the next run (its file names the dead pid until then, and the new holder's after). A run
    that ends removes the file while it still holds the lock; a run that opened the file
    before that removal finds, once it gets the lock, that the path no longer names its file,
    and tries again on the new one, so two runs never both hold "the" lock.
    """

    def __init__(self, cell_dir: Path) -> None:
        self.path = cell_dir / LOCK_NAME
        self._fd: int | None = None

    def _open_locked(self) -> int:
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
        return fd

    def _still_ours(self, fd: int) -> bool:
        """The path still names the file ``fd`` holds (not removed or replaced meanwhile)."""
        try:
            here = os.lstat(self.path)
        except FileNotFoundError:
            return False
        held = os.fstat(fd)
        return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)

    def __enter__(self) -> CellLock:
        for _ in range(10):
            fd = self._open_locked()
            if self._still_ours(fd):
                break
            os.close(fd)
        else:
            raise UsageError(
                f"{self.path} keeps being replaced while this run takes it; stop the other "
                "portbench runs of this cell, then resume"
            )
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
            # Removed while still held: a waiting run then sees the path name another file.
            if self._still_ours(self._fd):
                self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None
