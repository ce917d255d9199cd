"""The supervisor's diagnostics on its stderr (the cell's ``logs/supervisor.log``).

A diagnostic informs; it must never stop the supervisor. The log may be on a full disk or
past a file size limit (the write fails, and SIGXFSZ is ignored so that it fails rather than
kills), or its reader gone: the line is then dropped and the cell goes on, its records
unaffected. What a case wrote (a reason, a message) is escaped by the caller (``shown``), so
a case cannot forge a line of the log.
"""

from __future__ import annotations

import signal
import sys

__all__ = ["ignore_file_size_signal", "say"]


def say(line: str) -> None:
    """Write one line to stderr; a write that fails is dropped."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def ignore_file_size_signal() -> None:
    """A write past RLIMIT_FSIZE fails with EFBIG instead of killing this process."""
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
