"""One exception base for every failure of portbench itself; the CLI catches it in one place.

Each message is one sentence that says what is wrong and how to fix it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AcceleratorMissing",
    "BackendUnavailable",
    "CellFailed",
    "CellInterrupted",
    "EnvironmentBuildError",
    "ManifestError",
    "PlanError",
    "PortbenchError",
    "ResultsError",
    "UsageError",
]


class PortbenchError(Exception):
    """Base class: ``str(exc)`` is shown to the user as it is; ``exit_code`` is returned."""

    exit_code = 1


class UsageError(PortbenchError):
    """An unknown framework, accelerator, profile, option value or file."""

    exit_code = 2


class ManifestError(PortbenchError):
    """A manifest or case file is malformed; the message names the file and the entry."""

    exit_code = 3


class PlanError(PortbenchError):
    """A plan could not be compiled or read."""

    exit_code = 3


class AcceleratorMissing(PortbenchError):
    """The cell's accelerator is not present on this machine."""

    exit_code = 4


class EnvironmentBuildError(PortbenchError):
    """A cell's environment (venv or image) could not be built; ``log`` holds the tail."""

    exit_code = 5

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


class BackendUnavailable(PortbenchError):
    """The requested backend cannot run here (no engine, no such Python)."""

    exit_code = 6


class CellFailed(PortbenchError):
    """The cell's supervisor ended abnormally; records written so far are kept."""

    exit_code = 7

    def __init__(self, message: str, exit_status: int | None = None, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.exit_status = exit_status
        self.stderr_tail = stderr_tail


class CellInterrupted(PortbenchError):
    """A cell was stopped (Ctrl-C, SIGTERM); what was recorded is kept and it can resume."""

    exit_code = 130

    def __init__(self, message: str, run_dir: Path | None = None) -> None:
        super().__init__(message)
        self.run_dir = run_dir


class ResultsError(PortbenchError):
    """A results directory is unreadable or written by a newer portbench."""

    exit_code = 8
