"""The backend protocol, what a prepared environment tells the host, and what a run needs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rich.console import Console

from portbench_runner.contract import CellEnvironment, ImageRef

if TYPE_CHECKING:
    from ..results import CellWriter

__all__ = ["Backend", "BuildOptions", "CellLaunch", "PreparedEnvironment"]


@dataclass(frozen=True)
class BuildOptions:
    """How environments are built: base image, proxy CA bundle, local wheelhouse; or the
    image to use as it is (a tag, an id, or an export archive: docker only)."""

    base: str | None = None
    ca_bundle: Path | None = None
    find_links: Path | None = None
    image: str | None = None


@dataclass(frozen=True)
class PreparedEnvironment:
    """A cell's environment, ready to run: how to reach its Python and what it is."""

    backend: str
    description: str
    python: str | None = None
    """The interpreter (venv, host); None for containers."""
    image: ImageRef | None = None
    """The image (id, tag, lock) for docker; recorded in the plan and env.json."""
    manifest_root: str | None = None
    """The manifest folder as the cell sees it (differs inside a container)."""
    installer: str | None = None
    """What built the environment (``pip``, ``uv``); None where nothing was installed."""

    @property
    def cell_environment(self) -> CellEnvironment:
        """What this environment adds to a compiled plan (``Plan.in_environment``)."""
        return CellEnvironment(self.image, self.installer, self.manifest_root)


@dataclass(frozen=True)
class CellLaunch:
    """One session of a cell: its plan, the cases still to run, where its logs go."""

    cell_dir: Path
    plan_path: Path
    todo_path: Path
    collect_env: bool
    budget_s: float
    """The host's watchdog: the whole session may not take longer than this."""

    @property
    def logs(self) -> Path:
        return self.cell_dir / "logs"


class Backend(Protocol):
    """Where a cell runs. ``console`` shows what the cell prints while it runs."""

    name: str
    isolation: str
    """One sentence for the docs and ``doctor``: what this backend keeps a case away from."""
    console: Console

    def available(self) -> tuple[bool, str]:
        """Whether this backend can run here, and why not in one sentence."""

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        """Build or reuse the environment of a framework x flavor x profile."""

    def run_cell(
        self, prepared: PreparedEnvironment, launch: CellLaunch, writer: CellWriter
    ) -> int:
        """Run one session of the cell's supervisor, its stdout fed to ``writer``; its exit."""

    def run_tool(self, prepared: PreparedEnvironment, args: list[str], out_dir: Path) -> int:
        """Run ``python -m portbench_runner ARGS`` in the cell's environment, with ``out_dir``
        as the one folder it may write (``portbench enumerate``); its exit status."""
