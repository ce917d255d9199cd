"""Size limits on everything a cell reports, and the one way text is cut to them."""

from __future__ import annotations

__all__ = [
    "MESSAGE_CHARS",
    "OUTPUT_LOG_BYTES_PER_CASE",
    "OUTPUT_LOG_BYTES_PER_WORKER",
    "OUTPUT_TAIL_BYTES",
    "REASON_CHARS",
    "TRACEBACK_CHARS",
    "TRACEBACK_LINES",
    "clip",
    "safe_str",
]

TRACEBACK_LINES = 40
TRACEBACK_CHARS = 8000
MESSAGE_CHARS = 4000
REASON_CHARS = 1000
#: The end of a worker's output kept in a crashed or timed-out case's record.
OUTPUT_TAIL_BYTES = 3000
#: A case's output written to the worker's log; the rest is counted, not stored.
OUTPUT_LOG_BYTES_PER_CASE = 1 << 20
OUTPUT_LOG_BYTES_PER_WORKER = 64 << 20


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, keeping the end (where the cause is) and saying so."""
    if len(text) <= limit:
        return text
    return f"[{len(text) - limit} characters cut]...{text[-limit:]}"


def safe_str(exc: BaseException) -> str:
    """``str(exc)``, or a note when the exception's own ``__str__`` raises."""
    try:
        return str(exc)
    except Exception as inner:  # a case's exception class may itself be broken
        return f"<{type(exc).__name__}.__str__ raised {type(inner).__name__}>"
