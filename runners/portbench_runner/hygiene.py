"""What one case may not leave to the next in the same worker: its working directory, its
environment variables, and a process short of file descriptors.

The worker notes its state once, after the framework is loaded, and checks it after every
case: a changed working directory is changed back, environment variables the case set,
changed or removed are put back as they were, and a worker left with most of its file
descriptors open retires (it reports the case, then exits; the supervisor starts a fresh
worker for the next case). Descriptors are never closed here: the framework opens its own
(thread pools, caches) as it goes, and closing one of those would break the next case worse.

The check costs a ``getcwd``, a comparison of the environment and a listing of
``/proc/self/fd`` per case (tens of microseconds), not a new process per case.
"""

from __future__ import annotations

import errno
import os
from typing import Dict, Optional

__all__ = ["WorkerState"]

#: Retire once more than this share of the descriptor limit is open.
FD_SHARE = 0.75
_FD_DIR = "/proc/self/fd"


def _fd_limit() -> Optional[int]:
    try:
        import resource
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def open_fds() -> Optional[int]:
    """How many descriptors this process holds (None where the system does not say; -1
    where not even the listing could get one: every descriptor is taken)."""
    try:
        return len(os.listdir(_FD_DIR)) - 1  # the listing's own descriptor
    except OSError as exc:
        return -1 if exc.errno in (errno.EMFILE, errno.ENFILE) else None


class WorkerState:
    """The worker's state between cases, as noted when it started serving."""

    def __init__(self) -> None:
        self.cwd = os.getcwd()
        self.environ: Dict[str, str] = dict(os.environ)
        limit = _fd_limit()
        self.fd_ceiling = None if limit is None else int(limit * FD_SHARE)

    def restore(self) -> Optional[str]:
        """Put the working directory and the environment back; why the worker must retire
        (it cannot be put back), or None."""
        try:
            here: Optional[str] = os.getcwd()
        except OSError:  # the case removed it
            here = None
        if here != self.cwd:
            try:
                os.chdir(self.cwd)
            except OSError as exc:
                return f"its working directory {self.cwd} is gone ({exc.strerror or exc})"
        if os.environ != self.environ:
            for key in [k for k in os.environ if k not in self.environ]:
                del os.environ[key]
            for key, value in self.environ.items():
                if os.environ.get(key) != value:
                    os.environ[key] = value
        if self.fd_ceiling is not None:
            count = open_fds()
            if count == -1:
                return "every file descriptor is open"
            if count is not None and count > self.fd_ceiling:
                return f"{count} file descriptors are open (it retires past {self.fd_ceiling})"
        return None
