"""The one typed results layer of the host: every reader and the one writer of cell records.

- :mod:`.model`   the contract's record and session types, re-exported
- :mod:`.read`    ``read_results()`` and friends: validated, damage-tolerant, bounded reads
- :mod:`.writer`  ``CellWriter``: the host's checked, lock-holding writer of a cell
- :mod:`.lock`    one run per cell directory
- :mod:`.safeio`  no links followed, strict JSON, whole writes or none
"""

from . import model
from .lock import CellLock

# The record and session types are model's to list: whatever it re-exports, so does this.
from .model import *  # noqa: F403
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
    "CellLock",
    "CellWriter",
    "DiskFull",
    "ResultsRead",
    "StudyRead",
    "read_document",
    "read_env",
    "read_results",
    "read_sessions",
    "read_study_results",
]
__all__ += model.__all__
