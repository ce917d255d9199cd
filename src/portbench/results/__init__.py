"""The one typed results layer of the host: every reader and the one writer of cell records.

- :mod:`.model`   frozen record and session types, outcomes/stages/categories as enums
- :mod:`.read`    ``read_results()`` and friends: validated, damage-tolerant, bounded reads
- :mod:`.writer`  ``CellWriter``: the host's checked, lock-holding writer of a cell
- :mod:`.lock`    one run per cell directory
- :mod:`.safeio`  no links followed, strict JSON, whole writes or none
"""

from .lock import CellLock
from .model import (
    CaseRecord,
    Category,
    ErrorInfo,
    Outcome,
    RecordInvalid,
    SessionLine,
    Stage,
    Timing,
    WarmTiming,
    fallback_seen,
)
from .read import ResultsRead, read_document, read_results, read_sessions
from .safeio import DiskFull
from .writer import CellWriter

__all__ = [
    "CaseRecord",
    "Category",
    "CellLock",
    "CellWriter",
    "DiskFull",
    "ErrorInfo",
    "Outcome",
    "RecordInvalid",
    "ResultsRead",
    "SessionLine",
    "Stage",
    "Timing",
    "WarmTiming",
    "fallback_seen",
    "read_document",
    "read_results",
    "read_sessions",
]
