"""Running one cell: resolve it, prepare its environment, compile its plan, run, summarize.

The host is the only writer of a cell's directory: it compiles and writes the plan, holds
the cell's lock, and stores each record the cell's supervisor streams back (``results``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console

from portbench_runner.contract import Plan, SessionStatus, shown

from .accelerators import backend_for, get_accelerator, require_present, require_profile
from .backends import Backend, BuildOptions, PreparedEnvironment, make_backend
from .errors import (
    BackendUnavailable,
    CellFailed,
    CellInterrupted,
    UsageError,
)
from .images.accelerator_locks import require_installable
from .manifest import FRAMEWORKS, load_manifest
from .outcomes import FUNCTION_OUTCOMES, function_outcomes
from .paths import manifests_dir, results_dir
from .plan import CellSpec, PlanOptions, check_case_files, compile_plan, read_plan
from .profiles import check_profile
from .results import CaseRecord, read_results
from .results.read import ResultsRead
from .session import run_session
from .writable import make_dir, require_writable

__all__ = [
    "BenchRequest",
    "BuildOptions",
    "CellRunResult",
    "choose_backend",
    "execute_cell",
    "new_run_dir",
    "open_cell",
    "run_cell",
    "with_release",
    "writable_hint",
]


@dataclass(frozen=True)
class BenchRequest:
    framework: str
    accelerator: str
    profile: str
    backend: str = "auto"
    options: PlanOptions = field(default_factory=PlanOptions)
    run_dir: Path | None = None
    resume: Path | None = None
    python: str | None = None
    """host backend only: the interpreter to run the cell with (default: this one)."""
    build: BuildOptions = field(default_factory=BuildOptions)
    seed_records: tuple[CaseRecord, ...] = ()
    """Records of this cell kept elsewhere (the head of a cluster, resuming a cell on another
    node): stored in the new cell directory first, so only the other cases run."""
    plan: Plan | None = None
    """The plan compiled elsewhere (a Ray head's, sent whole): run as it is, not compiled
    again; its case files must hash here as they did there."""


@dataclass(frozen=True)
class CellRunResult:
    cell_dir: Path
    exit_status: int
    case_counts: dict[str, int]
    function_counts: dict[str, int]
    wall_s: float
    skipped_lines: int = 0
    siblings: tuple[CellRunResult, ...] = ()
    """A predicted pass's other cells (docs/predictions.md), recorded in the same session."""


def new_run_dir() -> Path:
    """``results/<UTC time>-<random>``: a new directory per run, never reused."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return results_dir() / f"{stamp}-{secrets.token_hex(2)}"


def choose_backend(
    requested: str,
    profile: str,
    console: Console,
    python: str | None = None,
    build: BuildOptions | None = None,
) -> Backend:
    """``auto``: host for the host profile, docker where an engine answers, else venv."""
    if profile == "host":
        if requested not in ("auto", "host"):
            raise UsageError(
                f"the host profile runs on the host backend only, not '{requested}'; "
                "drop --backend or pick a pinned profile"
            )
        return make_backend("host", build, console, python)
    if python is not None:
        raise UsageError("--python goes with the host profile; pinned profiles bring their own")
    if requested == "host":
        raise UsageError(
            f"the host backend runs whatever this interpreter has, which is not profile "
            f"'{profile}'; use --profile host, or --backend venv|docker"
        )
    if requested != "auto":
        backend = make_backend(requested, build, console)
        ok, why = backend.available()
        if not ok:
            raise BackendUnavailable(why)
        return backend
    try:
        docker = make_backend("docker", build, console)
        ok, why = docker.available()
    except (ImportError, UsageError):
        ok, why = False, "the docker backend is not installed"
    if ok:
        return docker
    console.print(
        f"[yellow]note:[/] {why.split(';')[0]}; using the venv backend "
        "(for pinned containers, start a Docker engine: README, 'Docker')."
    )
    return make_backend("venv", build, console)


def as_typed(path: Path) -> Path:
    """A path as the user would type it here: relative to the working directory where it
    lies under it (run directories are absolute inside, for the containers' mounts)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _cell_dir(request: BenchRequest, cell: CellSpec) -> tuple[Path, bool]:
    if request.resume is not None:
        base = request.resume.absolute()
        if not base.is_dir():
            raise UsageError(
                f"{base} does not exist or is no directory; pass the run directory that bench "
                "created (results/<run-id>)"
            )
        candidate = base if (base / "plan.json").exists() else base / cell.dir_name
        if not (candidate / "plan.json").exists():
            raise UsageError(
                f"{base} holds no plan.json for cell {cell.cell_id}; pass the run directory "
                "(results/<run-id>) or the cell directory that a bench run created"
            )
        return candidate, True
    # Absolute: a container takes no relative path to mount.
    run_dir = (request.run_dir or new_run_dir()).absolute()
    cell_dir = run_dir / cell.dir_name
    if cell_dir.exists():
        raise UsageError(
            f"{as_typed(cell_dir)} exists already; use --resume {as_typed(run_dir)} to finish "
            "it, or another --run-dir"
        )
    return cell_dir, False


def _resumed_plan(path: Path, cell: CellSpec) -> Plan:
    plan = read_plan(path)
    if plan.cell != cell.cell_id:
        raise UsageError(f"{path} is the plan of {plan.cell}, not {cell.cell_id}")
    return plan


def _compiled(request: BenchRequest, cell: CellSpec) -> Plan:
    """The plan of a new cell: the one sent with the request (its case files checked), or
    compiled here from the manifest."""
    sent = request.plan
    if sent is not None:
        if sent.cell != cell.cell_id:
            raise UsageError(f"the plan sent is of {sent.cell}, not {cell.cell_id}")
        check_case_files(sent, manifests_dir() / request.framework)
        # The plan names the backend that runs it (where the head left the choice to here).
        rerun = cell.rerun_prefix("bench", *sent.fallback.cli_args())
        return replace(sent, backend=cell.backend, rerun_prefix=rerun)
    from .rules import load_rules

    return compile_plan(
        cell, load_manifest(request.framework), load_rules(request.framework), request.options
    )


def open_cell(
    framework: str,
    accelerator_id: str,
    profile: str,
    backend: str,
    python: str | None,
    build: BuildOptions,
    console: Console,
) -> tuple[Backend, CellSpec]:
    """The cell a bench or census run names, checked (profile, backend, the device being
    here) before anything is built; its backend and spec."""
    accelerator = get_accelerator(accelerator_id)
    check_profile(profile, framework, accelerator.flavor)
    require_profile(accelerator, profile)
    require_installable(profile, framework, accelerator.flavor)
    chosen = choose_backend(
        backend_for(accelerator, backend, profile), profile, console, python, build
    )
    cell = CellSpec(framework, accelerator, profile, chosen.name)
    require_present(accelerator)
    return chosen, cell


def writable_hint(resuming: bool) -> str:
    """What to do about a cell directory that cannot be written."""
    if resuming:
        return "make it writable, or copy the run to a writable place and resume that copy"
    return "pass --run-dir with a directory you can write"


def run_cell(request: BenchRequest, console: Console) -> CellRunResult:
    """Run (or resume) one cell; the host stores each record the cell streams back."""
    if request.framework not in FRAMEWORKS:
        raise UsageError(
            f"unknown framework '{request.framework}' (known: {', '.join(FRAMEWORKS)})"
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
    # Compiled (and refused, if it selects nothing) before anything is built or made.
    plan = _resumed_plan(cell_dir / "plan.json", cell) if resuming else _compiled(request, cell)
    # Writable before anything is built; checked without creating the directory, so that a
    # build that fails leaves no empty cell directory behind.
    where = writable_hint(resuming)
    require_writable(cell_dir, where)
    prepared = backend.prepare(request.framework, accelerator.flavor, request.profile)
    if not resuming:
        plan = plan.in_environment(prepared.cell_environment)
        plan = with_release(plan, cell, accelerator.flavor)
        make_dir(cell_dir, where)
        if request.seed_records:
            _seed(cell_dir, plan, request.seed_records)
    return execute_cell(cell.cell_id, backend, prepared, plan, cell_dir, resuming, console)


def with_release(plan: Plan, cell: CellSpec, flavor: str) -> Plan:
    """A release cell's plan names its release and lock (records and env.json carry them,
    with the Python and numpy the worker finds); a profile's plan is left as it is."""
    from .releases.cells import cell_lock, lock_provenance, release_of_profile

    if plan.provenance is not None or release_of_profile(cell.profile, cell.framework) is None:
        return plan
    # The lock the environment was just prepared from: committed or cached, read again.
    return replace(
        plan, provenance=lock_provenance(cell_lock(cell.profile, cell.framework, flavor))
    )


def _seed(cell_dir: Path, plan: Plan, records: tuple[CaseRecord, ...]) -> None:
    """Store records made elsewhere, each checked as the cell's own would be: of this cell
    and plan, of the same case file, first for its case."""
    from .results import CellWriter, RecordInvalid

    with CellWriter(cell_dir, plan) as writer:
        for record in records:
            if record.case in plan:
                function, _ = plan.entry(record.case)
                if record.case_file_sha256 != function.case_file_sha256:
                    raise UsageError(
                        f"{shown(record.case)} was recorded with another case file than this "
                        "machine has; run the same portbench version on every node"
                    )
            if record.case in writer.recorded:
                continue
            try:
                writer.store_host_record(record)
            except RecordInvalid as exc:
                raise UsageError(f"a record to resume from does not fit the plan ({exc})") from None
        if writer.failure is not None:
            raise writer.failure


def execute_cell(
    cell_id: str,
    backend: Backend,
    prepared: PreparedEnvironment,
    plan: Plan,
    cell_dir: Path,
    resuming: bool,
    console: Console,
    siblings: Sequence[tuple[Plan, Path]] = (),
) -> CellRunResult:
    """Run a compiled plan in a prepared environment (a new cell, a resumed one or a rerun)
    and summarize what was recorded; raises when the cell stopped early. ``siblings``: a
    predicted pass's other cells and their directories (``run_session``)."""
    total = plan.case_count
    console.print(f"[bold]{cell_id}[/] on {prepared.description}: {total} cases → {cell_dir}")
    # Where the stopping sentences say the cell lies, and the run to resume, as typed.
    here, run_here = as_typed(cell_dir), as_typed(cell_dir.parent)
    started = time.monotonic()
    try:
        session = run_session(
            backend, prepared, plan, cell_dir, console, new=not resuming, siblings=siblings
        )
    except KeyboardInterrupt:
        # Ctrl-C outside the stream (while the session line was written, say): still resumable.
        raise CellInterrupted(
            f"interrupted: what was recorded in {here} is kept; resume with --resume {run_here}",
            run_dir=run_here,
        ) from None
    status, ended, writer = session.status, session.ended, session.writer
    wall_s = time.monotonic() - started
    read = read_results(cell_dir / "results.jsonl", writer.kind)
    records = read.records
    others = tuple(
        _summary(p, d, status, wall_s, read_results(d / "results.jsonl", writer.kind))
        for p, d in siblings
    )
    result = replace(_summary(plan, cell_dir, status, wall_s, read), siblings=others)
    if read.skipped:
        console.print(
            f"[yellow]note:[/] {read.summary(cell_dir / 'results.jsonl')}", soft_wrap=True
        )
    if writer.failure is not None:
        raise writer.failure
    if status == 130 or ended.status is SessionStatus.INTERRUPTED:
        raise CellInterrupted(
            f"interrupted: {len(records)} of {total} cases are recorded in {here}; "
            f"resume with --resume {run_here}",
            run_dir=run_here,
        )
    if status != 0 or not ended.complete:
        reason = ended.reason or f"exit {status}"
        raise CellFailed(
            f"cell {cell_id} stopped early ({reason}); {len(records)} records kept in "
            f"{here}, resume with --resume {run_here}",
            exit_status=status or 1,
        )
    if writer.rejected:
        console.print(
            f"[yellow]note:[/] {writer.rejected} line(s) from the cell were refused "
            f"({'; '.join(writer.rejections)}); see sessions.jsonl"
        )
    return result


def _summary(
    plan: Plan, cell_dir: Path, status: int, wall_s: float, read: ResultsRead
) -> CellRunResult:
    """What a cell recorded, counted: cases by outcome, functions by outcome."""
    # cpu_too: of the failed cases, those whose CPU twin failed too (counted in fail as well).
    case_counts = dict.fromkeys(("pass", "fail", "skip", "error", "cpu_too"), 0)
    for record in read.records:
        case_counts[record.outcome.value] += 1
        case_counts["cpu_too"] += int(record.fails_on_cpu)
    function_counts = dict.fromkeys(FUNCTION_OUTCOMES, 0)
    for outcome in function_outcomes(plan, read.records).values():
        function_counts[outcome] += 1
    return CellRunResult(cell_dir, status, case_counts, function_counts, wall_s, read.skipped)
