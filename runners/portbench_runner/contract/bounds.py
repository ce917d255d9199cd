"""Size limits on everything that crosses a cell's boundary, the defaults every side shares,
and the one way text is cut to a limit."""

from __future__ import annotations

import re

__all__ = [
    "CASE_FILE_BYTES",
    "DEFAULT_CASE_TIMEOUT_S",
    "DEFAULT_CELL_BUDGET_S",
    "DEFAULT_GRACE_S",
    "DEFAULT_MAX_RESTARTS",
    "DEFAULT_SEED",
    "DEFAULT_WORKER_START_S",
    "DISPLAY_NAME_CHARS",
    "ERROR_TYPE_CHARS",
    "MAX_CASE_ID_CHARS",
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_KEYS",
    "MAX_LINE_BYTES",
    "MAX_LINE_KEYS",
    "MAX_NAME_CHARS",
    "MAX_NUMBER_CHARS",
    "MAX_SAMPLES",
    "MESSAGE_CHARS",
    "OUTPUT_LOG_BYTES_PER_CASE",
    "OUTPUT_LOG_BYTES_PER_WORKER",
    "OUTPUT_TAIL_BYTES",
    "REASON_CHARS",
    "RULE_CHARS",
    "STDERR_TAIL_CHARS",
    "TRACEBACK_CHARS",
    "TRACEBACK_LINES",
    "clip",
    "printable",
    "safe_str",
    "shown",
]

# -- lines and documents (the bounded reader, jsonline.py) ------------------------------------
#: A line longer than this is garbage, whoever sent it (records are trimmed far below it).
MAX_LINE_BYTES = 1 << 20
#: plan.json and env.json: a plan lists every case, an env every installed package.
MAX_DOCUMENT_BYTES = 64 << 20
#: Nesting of arrays and objects. Records nest 5 deep, plans 7; a decoder that recurses per
#: level (Python's json does) stays far from the interpreter's recursion limit.
MAX_DEPTH = 32
#: Keys in one line: a record has under 100, a ``hello`` with the installed packages under
#: a few thousand.
MAX_LINE_KEYS = 20000
#: Keys in one document: a census plan of every operator and dtype has some 100,000.
MAX_DOCUMENT_KEYS = 4000000
#: Characters of one JSON number (Python 3.8 turns a long digit string into an int in
#: quadratic time).
MAX_NUMBER_CHARS = 100

# -- names ---------------------------------------------------------------------------------
#: A function or case name; the longest in the manifests has 70 characters, a census
#: variant (a JAX harness name, cut at 160) about 220.
MAX_NAME_CHARS = 256
#: ``<function>::<case name>``.
MAX_CASE_ID_CHARS = 2 * MAX_NAME_CHARS + 2
#: How much of a name a status line or a message shows.
DISPLAY_NAME_CHARS = 120

# -- what a record keeps ---------------------------------------------------------------------
TRACEBACK_LINES = 40
TRACEBACK_CHARS = 8000
MESSAGE_CHARS = 4000
REASON_CHARS = 1000
RULE_CHARS = 200
ERROR_TYPE_CHARS = 200
#: The end of a worker's output kept in a crashed or timed-out case's record.
OUTPUT_TAIL_BYTES = 3000
#: What a record may hold of it (decoded, a byte may take several characters).
STDERR_TAIL_CHARS = 8000
#: A case's output written to the worker's log; the rest is counted, not stored.
OUTPUT_LOG_BYTES_PER_CASE = 1 << 20
OUTPUT_LOG_BYTES_PER_WORKER = 64 << 20
#: Warm samples kept per case (enough for a rank test between two runs).
MAX_SAMPLES = 1000
#: The largest file a worker (and so a case) may write: a write past it fails (EFBIG) and
#: fails that case, where an unbounded one would fill the disk the cell's records go to.
CASE_FILE_BYTES = 1 << 30

# -- defaults every side uses (the plan carries the cell's own) ------------------------------
DEFAULT_SEED = 20230101
#: The study's per-test timeout (15 min).
DEFAULT_CASE_TIMEOUT_S = 900.0
DEFAULT_WORKER_START_S = 600.0
DEFAULT_GRACE_S = 5.0
DEFAULT_MAX_RESTARTS = 3
#: A cell's wall-time cap: a CPU cell of the widened manifests stays under 10 minutes.
DEFAULT_CELL_BUDGET_S = 540.0


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, keeping the end (where the cause is) and saying
    how much was cut. The note counts against the limit, so a clipped text clipped again to
    the same limit is unchanged (and still says how much the first cut removed)."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    while True:
        note = f"[{cut} characters cut]..."
        keep = max(0, limit - len(note))
        if len(text) - keep == cut:
            return note + text[len(text) - keep :]
        cut = len(text) - keep


#: What a log line or a terminal must never carry raw from a case: line breaks (a forged
#: line), carriage returns and escape codes (an overwritten or recoloured one), other C0/C1
#: controls, and the Unicode line separators and bidirectional overrides.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character written as its escape (``\\n``, ``\\x1b``): what
    a case wrote reads as one inert line."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def shown(name: str, limit: int = DISPLAY_NAME_CHARS) -> str:
    """A name or a reason as a status line shows it: control characters escaped, at most
    ``limit`` characters, the start kept."""
    name = printable(name[: limit * 8])
    if len(name) <= limit:
        return name
    return f"{name[: limit - 1]}…"


def safe_str(exc: BaseException) -> str:
    """``str(exc)``, or a note when the exception's own ``__str__`` raises."""
    try:
        return str(exc)
    except Exception as inner:  # a case's exception class may itself be broken
        return f"<{type(exc).__name__}.__str__ raised {type(inner).__name__}>"
