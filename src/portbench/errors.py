"""One exception base for every failure of portbench itself; the CLI catches it in one place.

Each message is one sentence that says what is wrong and how to fix it.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = [
    "AcceleratorMissing",
    "BackendUnavailable",
    "CellFailed",
    "CellInterrupted",
    "EnvironmentBuildError",
    "LoggedError",
    "ManifestError",
    "PlanError",
    "PortbenchError",
    "ResultsError",
    "UsageError",
]


#: At most this many of an error's collected log lines (pip's, a build's) are shown.
LOG_TAIL_LINES = 40
#: ... each cut to this many characters.
LOG_LINE_CHARS = 300
# A collected log's escape sequences and control characters are not the terminal's.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]")


class PortbenchError(Exception):
    """Base class: ``str(exc)`` is shown to the user as it is; ``exit_code`` is returned."""

    exit_code = 1

    @property
    def collected_log(self) -> str:
        """Output the failure collected (pip's, a build's, a process's stderr); shown after."""
        return ""

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> list[str]:
        """The last ``lines`` non-blank lines of :attr:`collected_log`, bounded and printable."""
        kept = [_CONTROL.sub("", line).rstrip() for line in self.collected_log.splitlines()]
        kept = [line for line in kept if line.strip()][-lines:] if lines > 0 else []
        return [
            line if len(line) <= LOG_LINE_CHARS else line[:LOG_LINE_CHARS] + "…" for line in kept
        ]


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


class LoggedError(PortbenchError):
    """A failure of a command portbench ran (pip, a build, ``ray start``): ``log`` holds its
    output, whose tail the CLI shows after the sentence."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log

    @property
    def collected_log(self) -> str:
        return self.log


class EnvironmentBuildError(LoggedError):
    """A cell's environment (venv or image) could not be built; ``log`` holds the tail."""

    exit_code = 5


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

    @property
    def collected_log(self) -> str:
        return self.stderr_tail


class CellInterrupted(PortbenchError):
    """A cell was stopped (Ctrl-C, SIGTERM); what was recorded is kept and it can resume."""

    exit_code = 130

    def __init__(self, message: str, run_dir: Path | None = None) -> None:
        super().__init__(message)
        self.run_dir = run_dir


class ResultsError(PortbenchError):
    """A results directory is unreadable or written by a newer portbench."""

    exit_code = 8
