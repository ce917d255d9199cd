"""Size limits on everything a cell reports, and the one way text is cut to them: the
contract's (``contract.bounds``), under the name runner modules import them by."""

from __future__ import annotations

from .contract.bounds import (
    MESSAGE_CHARS,
    OUTPUT_LOG_BYTES_PER_CASE,
    OUTPUT_LOG_BYTES_PER_WORKER,
    OUTPUT_TAIL_BYTES,
    REASON_CHARS,
    TRACEBACK_CHARS,
    TRACEBACK_LINES,
    clip,
    safe_str,
)

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
