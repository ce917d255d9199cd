"""The one typed results layer of the host: every reader and the one writer of cell records.

- :mod:`.model`   the contract's record and session types, re-exported
- :mod:`.read`    ``read_results()`` and friends: validated, damage-tolerant, bounded reads
- :mod:`.writer`  ``CellWriter``: the host's checked, lock-holding writer of a cell
- :mod:`.lock`    one run per cell directory
- :mod:`.safeio`  no links followed, strict JSON, whole writes or none
"""

from .lock import CellLock
from .model import (
    AnyRecord,
    CaseRecord,
    Category,
    ErrorInfo,
    EvidenceKind,
    Outcome,
    RecordInvalid,
    RecordKind,
    SessionLine,
    Stage,
    StudyRecord,
    Timing,
    WarmTiming,
    fallback_seen,
)
from .read import (
    ResultsRead,
    StudyRead,
    read_document,
    read_env,
    read_results,
    read_sessions,
    read_study_results,
)
from .safeio import DiskFull
from .writer import CellWriter

__all__ = [
    "AnyRecord",
    "CaseRecord",
    "Category",
    "CellLock",
    "CellWriter",
    "DiskFull",
    "ErrorInfo",
    "EvidenceKind",
    "Outcome",
    "RecordInvalid",
    "RecordKind",
    "ResultsRead",
    "SessionLine",
    "Stage",
    "StudyRead",
    "StudyRecord",
    "Timing",
    "WarmTiming",
    "fallback_seen",
    "read_document",
    "read_env",
    "read_results",
    "read_sessions",
    "read_study_results",
]
