"""The host backend: the current interpreter's installed frameworks, recorded as found."""

from __future__ import annotations

import sys
from pathlib import Path

from .base import PreparedEnvironment, run_supervisor_process

__all__ = ["HostBackend"]


class HostBackend:
    """For machines where nothing can be installed (a locked-down GPU box): profile ``host``."""

    name = "host"

    def __init__(self, python: str | None = None) -> None:
        self.python = python or sys.executable

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        return PreparedEnvironment(
            backend=self.name, description=f"this interpreter ({self.python})", python=self.python
        )

    def run(self, prepared: PreparedEnvironment, plan_path: Path, run_dir: Path) -> int:
        assert prepared.python is not None
        return run_supervisor_process(prepared.python, plan_path, run_dir)
