"""Which signal stopped this run, so that what stops a cell and what the user reads name it.

Ctrl-C in a terminal sends SIGINT to the whole foreground group; nox, a CI runner or
``kill`` send SIGTERM. Both end a run the same way (Python's KeyboardInterrupt: the
session ends as interrupted, what was recorded is kept), and the signal received is
forwarded to the cell as it came, so the cell's session line and the last sentence say
SIGINT when the user pressed Ctrl-C, never a SIGTERM the host made up.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

__all__ = [
    "describe",
    "ignore_file_size_signal",
    "install",
    "received",
]

_received: list[int] = []


def _handler(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


def install() -> None:
    """SIGINT and SIGTERM both raise KeyboardInterrupt in the main thread, recorded.

    A signal ignored when this process started (a background job's SIGINT) stays ignored.
    """
    _received.clear()
    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread may set handlers (a command run from a thread)
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _handler)
    ignore_file_size_signal()


def ignore_file_size_signal() -> None:
    """A write past a file size limit (RLIMIT_FSIZE) fails with EFBIG, which the writers
    undo and say in one sentence, instead of SIGXFSZ killing portbench in mid-file."""
    if hasattr(signal, "SIGXFSZ") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def received() -> int:
    """The first signal that stopped this run (SIGINT where none was recorded: Ctrl-C)."""
    return _received[0] if _received else signal.SIGINT


def describe() -> str:
    """``SIGINT (Ctrl-C)`` or ``SIGTERM``: how the run was stopped, for a sentence."""
    sig = received()
    name = signal.Signals(sig).name
    return f"{name} (Ctrl-C)" if sig == signal.SIGINT else name
