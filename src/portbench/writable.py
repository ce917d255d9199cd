"""Checking, before any work, that a directory portbench must write to can be written.

A read-only results folder (a mounted share, a checkout owned by someone else) would
otherwise be found out only after a cell's environment was built, as a traceback. Permission
bits alone cannot tell (root ignores them; a read-only mount is invisible to them), so the
check creates and removes a probe file where the directory is, or would be, created.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from .errors import ResultsError

__all__ = ["cannot_write", "make_dir", "require_writable"]

#: The errors that mean "this place cannot be written", as opposed to a bug of ours.
WRITE_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.ENOSPC})


def cannot_write(path: Path, exc: OSError, hint: str) -> ResultsError:
    """One sentence for an OSError met while writing ``path``."""
    why = exc.strerror or str(exc)
    return ResultsError(f"cannot write {path} ({why}); {hint}")


def _nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists (what a ``mkdir -p`` would write into)."""
    current = path.absolute()
    while not os.path.lexists(current) and current.parent != current:
        current = current.parent
    return current


def require_writable(path: Path, hint: str) -> None:
    """Raise one sentence unless ``path`` (existing or to be created) can hold new files.

    ``hint`` says how to fix it (the option that picks another directory). Nothing is left
    behind: a directory that does not exist yet is not created.
    """
    where = _nearest_existing(path)
    if not where.is_dir():
        raise ResultsError(f"cannot write {path}: {where} is not a directory; {hint}")
    try:
        fd, probe = tempfile.mkstemp(prefix=".portbench-probe-", dir=where)
    except OSError as exc:
        raise cannot_write(path, exc, hint) from None
    os.close(fd)
    os.unlink(probe)


def make_dir(path: Path, hint: str, exist_ok: bool = False) -> None:
    """``path.mkdir(parents=True)``, with a write failure as one sentence."""
    try:
        path.mkdir(parents=True, exist_ok=exist_ok)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in WRITE_ERRNOS:
            raise
        raise cannot_write(path, exc, hint) from None
