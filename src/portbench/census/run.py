"""Running a census cell: prepare the cell's environment with the census lock layered on,
list the database inside the cell, validate the listing, compile the plan and run it as
any cell runs (same supervisor, records, resume; ``cellrun.execute_cell``)."""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console

from portbench_runner.contract import Plan

from ..backends import Backend, BuildOptions, PreparedEnvironment
from ..backends.launch import CELL_PATHS
from ..cellrun import (
    CellRunResult,
    execute_cell,
    new_run_dir,
    open_cell,
    with_release,
    writable_hint,
)
from ..errors import CellFailed, ResultsError, UsageError
from ..plan import CellSpec, read_plan
from ..results.safeio import read_bounded, write_new
from ..writable import make_dir, require_writable
from .environment import census_environment
from .listing import MAX_LISTING_BYTES, CensusListing, parse_listing
from .plan import CensusOptions, compile_census_plan

__all__ = ["CENSUS_FRAMEWORKS", "CensusRequest", "census_dir_name", "list_database", "run_census"]

#: Frameworks whose database the runner can list and run.
CENSUS_FRAMEWORKS = ("torch", "jax", "tensorflow")
LISTING_FILE = "census-listing.json"


@dataclass(frozen=True)
class CensusRequest:
    framework: str
    accelerator: str
    profile: str
    backend: str = "auto"
    options: CensusOptions = field(default_factory=CensusOptions)
    run_dir: Path | None = None
    resume: Path | None = None
    python: str | None = None
    build: BuildOptions = field(default_factory=BuildOptions)


def census_dir_name(cell: CellSpec) -> str:
    """A census cell's folder: never the folder of the bench cell of the same id."""
    return f"census-{cell.dir_name}"


def list_database(
    backend: Backend, prepared: PreparedEnvironment, framework: str, site: tuple[str, ...]
) -> tuple[CensusListing, bytes]:
    """Run the lister in the cell (``census-list``) and validate what it wrote."""
    with tempfile.TemporaryDirectory(prefix="portbench-census-") as folder:
        work = Path(folder) / "out"
        work.mkdir()
        inside = CELL_PATHS["out"] if prepared.python is None else str(work)
        args = ["census-list", "--framework", framework, "--out", f"{inside}/{LISTING_FILE}"]
        for path in site:
            args += ["--site", path]
        status = backend.run_tool(prepared, args, work)
        try:
            data = read_bounded(work / LISTING_FILE, MAX_LISTING_BYTES)
        except (OSError, ResultsError):
            data = None
        if status != 0 or data is None:
            log = work.parent / f"{work.name}.log"
            lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
            raise CellFailed(
                f"listing the {framework} database in {prepared.description} failed "
                f"(exit {status}){': ' + lines[-1] if lines else ''}; see its output above",
                exit_status=status or 1,
            )
    return parse_listing(data, f"the listing from {prepared.description}", framework), data


def _cell_dir(request: CensusRequest, cell: CellSpec) -> tuple[Path, bool]:
    if request.resume is not None:
        base = request.resume
        candidate = base if (base / "plan.json").exists() else base / census_dir_name(cell)
        if not (candidate / "plan.json").exists():
            raise UsageError(
                f"{base} holds no census plan of {cell.cell_id}; pass the run directory "
                "(results/<run-id>) or the census cell directory a census run created"
            )
        return candidate, True
    run_dir = request.run_dir or new_run_dir()
    cell_dir = run_dir / census_dir_name(cell)
    if cell_dir.exists():
        raise UsageError(
            f"{cell_dir} exists already; use --resume {run_dir} to finish it, or another --run-dir"
        )
    return cell_dir, False


def _resumed_plan(path: Path, cell: CellSpec) -> Plan:
    plan = read_plan(path)
    if plan.cell != cell.cell_id or plan.census is None:
        raise UsageError(f"{path} is not the census plan of {cell.cell_id}")
    return plan


def run_census(request: CensusRequest, console: Console) -> CellRunResult:
    """Run (or resume) one census cell."""
    if request.framework not in CENSUS_FRAMEWORKS:
        raise UsageError(
            f"no census for '{request.framework}' yet (census frameworks: "
            f"{', '.join(CENSUS_FRAMEWORKS)})"
        )
    backend, cell = open_cell(
        request.framework,
        request.accelerator,
        request.profile,
        request.backend,
        request.python,
        request.build,
        console,
    )
    accelerator = cell.accelerator
    cell_dir, resuming = _cell_dir(request, cell)
    where = writable_hint(resuming)
    require_writable(cell_dir, where)
    prepared = backend.prepare(request.framework, accelerator.flavor, request.profile)
    prepared, site = census_environment(prepared, request.framework, request.profile, console)
    if resuming:
        plan = _resumed_plan(cell_dir / "plan.json", cell)
    else:
        listing, data = list_database(backend, prepared, request.framework, site)
        from ..rules import load_rules

        plan = compile_census_plan(
            cell,
            listing,
            load_rules(request.framework),
            replace(request.options, site=site),
            hashlib.sha256(data).hexdigest(),
        )
        plan = plan.in_environment(replace(prepared.cell_environment, manifest_root=None))
        plan = with_release(plan, cell, accelerator.flavor)
        make_dir(cell_dir, where)
        # The listing the plan was compiled from, kept beside it (as the cell wrote it).
        write_new(cell_dir / LISTING_FILE, _listing_json(data))
    return execute_cell(cell.cell_id, backend, prepared, plan, cell_dir, resuming, console)


def _listing_json(data: bytes) -> object:
    from ..results.safeio import loads_strict

    return loads_strict(data)
