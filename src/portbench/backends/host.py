"""The host backend: the current interpreter's installed frameworks, recorded as found."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from ..paths import runners_dir
from ..results import CellWriter
from .base import CellLaunch, PreparedEnvironment
from .launch import run_tool_process, stream_supervisor

__all__ = ["HostBackend"]


class HostBackend:
    """For machines where nothing can be installed (a locked-down GPU box): profile ``host``."""

    name = "host"
    isolation = (
        "none from the case: it runs as your user in this interpreter's environment, so it "
        "can read and write what you can, the cell's records included; portbench bounds its "
        "output, kills what it leaves running and checks what it reports"
    )

    def __init__(self, python: str | None = None, console: Console | None = None) -> None:
        self.python = python or sys.executable
        self.console = console or Console(stderr=True, highlight=False)

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        return PreparedEnvironment(
            backend=self.name, description=f"this interpreter ({self.python})", python=self.python
        )

    def run_cell(
        self, prepared: PreparedEnvironment, launch: CellLaunch, writer: CellWriter
    ) -> int:
        assert prepared.python is not None
        return stream_supervisor(prepared.python, str(runners_dir()), False, launch, writer)

    def run_tool(self, prepared: PreparedEnvironment, args: list[str], out_dir: Path) -> int:
        assert prepared.python is not None
        return run_tool_process(prepared.python, args, pinned=False)
