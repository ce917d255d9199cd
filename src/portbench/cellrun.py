"""Running one cell: resolve it, prepare its environment, compile its plan, run, summarize."""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from .accelerators import get_accelerator, require_present
from .backends import get_backend
from .backends.base import Backend
from .errors import CellFailed, ResultsError, UsageError
from .manifest import FRAMEWORKS, load_manifest
from .outcomes import function_outcomes
from .paths import results_dir
from .plan import CellSpec, PlanOptions, compile_plan, write_plan
from .profiles import check_profile
from .progress import CellProgress

__all__ = ["BenchRequest", "CellRunResult", "choose_backend", "new_run_dir", "run_cell"]


@dataclass(frozen=True)
class BuildOptions:
    """How environments are built: base image, proxy CA bundle, local wheelhouse."""

    base: str | None = None
    ca_bundle: Path | None = None
    find_links: Path | None = None


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


@dataclass(frozen=True)
class CellRunResult:
    cell_dir: Path
    exit_status: int
    case_counts: dict[str, int]
    function_counts: dict[str, int]
    wall_s: float


def new_run_dir() -> Path:
    """``results/<UTC time>-<random>``: a new directory per run, never reused."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return results_dir() / f"{stamp}-{secrets.token_hex(2)}"


def _make(name: str, build: BuildOptions) -> Backend:
    if name == "docker":
        from .backends.docker_backend import DockerBackend

        return DockerBackend(build.base, build.ca_bundle, build.find_links)
    if name == "venv":
        from .backends.venv import VenvBackend

        return VenvBackend(build.find_links)
    return get_backend(name)


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
        from .backends.host import HostBackend

        return HostBackend(python)
    if python is not None:
        raise UsageError("--python goes with the host profile; pinned profiles bring their own")
    if requested == "host":
        raise UsageError(
            f"the host backend runs whatever this interpreter has, which is not profile "
            f"'{profile}'; use --profile host, or --backend venv|docker"
        )
    build = build or BuildOptions()
    if requested != "auto":
        backend = _make(requested, build)
        ok, why = backend.available()
        if not ok:
            from .errors import BackendUnavailable

            raise BackendUnavailable(why)
        return backend
    try:
        docker = _make("docker", build)
        ok, why = docker.available()
    except (ImportError, UsageError):
        ok, why = False, "the docker backend is not installed"
    if ok:
        return docker
    console.print(
        f"[yellow]note:[/] {why.split(';')[0]}; using the venv backend "
        "(for pinned containers, start a Docker engine: README, 'Docker')."
    )
    return _make("venv", build)


def _cell_dir(request: BenchRequest, cell: CellSpec) -> tuple[Path, bool]:
    if request.resume is not None:
        base = request.resume
        candidate = base if (base / "plan.json").exists() else base / cell.dir_name
        if not (candidate / "plan.json").exists():
            raise UsageError(
                f"{base} holds no plan.json for cell {cell.cell_id}; pass the run directory "
                "(results/<run-id>) or the cell directory that a bench run created"
            )
        return candidate, True
    run_dir = request.run_dir or new_run_dir()
    cell_dir = run_dir / cell.dir_name
    if cell_dir.exists():
        raise UsageError(
            f"{cell_dir} exists already; use --resume {run_dir} to finish it, or another --run-dir"
        )
    return cell_dir, False


def _read_plan(path: Path) -> dict[str, Any]:
    try:
        plan: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: cannot read the plan to resume ({exc})") from None
    return plan


def _read_records(path: Path) -> list[dict[str, Any]]:
    records = []
    if path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    return records


def run_cell(request: BenchRequest, console: Console) -> CellRunResult:
    """Run (or resume) one cell; records are written by the in-cell supervisor as it goes."""
    if request.framework not in FRAMEWORKS:
        raise UsageError(
            f"unknown framework '{request.framework}' (known: {', '.join(FRAMEWORKS)})"
        )
    accelerator = get_accelerator(request.accelerator)
    check_profile(request.profile, request.framework, accelerator.flavor)
    backend = choose_backend(
        request.backend, request.profile, console, request.python, request.build
    )
    if hasattr(backend, "console"):
        # Container logs print above the progress bar, through the same console.
        backend.console = console
    cell = CellSpec(request.framework, accelerator, request.profile, backend.name)
    require_present(accelerator)
    manifest = load_manifest(request.framework)
    from .rules import load_rules

    rules = load_rules(request.framework)
    cell_dir, resuming = _cell_dir(request, cell)
    # The environment first: a build that fails leaves no empty cell directory behind.
    prepared = backend.prepare(request.framework, accelerator.flavor, request.profile)
    cell_dir.mkdir(parents=True, exist_ok=resuming)
    plan_path = cell_dir / "plan.json"
    if resuming:
        plan = _read_plan(plan_path)
        if plan.get("cell") != cell.cell_id:
            raise UsageError(f"{plan_path} is the plan of {plan.get('cell')}, not {cell.cell_id}")
    else:
        options = request.options
        if prepared.image is not None:
            options = PlanOptions(**{**options.__dict__, "image": prepared.image})
        plan = compile_plan(cell, manifest, rules, options, manifest_root=prepared.manifest_root)
        write_plan(plan, plan_path)
    total = sum(len(f["cases"]) for f in plan["functions"])
    console.print(f"[bold]{cell.cell_id}[/] on {prepared.description}: {total} cases → {cell_dir}")
    started = time.monotonic()
    with CellProgress(console, cell.cell_id, cell_dir / "results.jsonl", total):
        status = backend.run(prepared, plan_path, cell_dir)
    wall_s = time.monotonic() - started
    records = _read_records(cell_dir / "results.jsonl")
    case_counts = dict.fromkeys(("pass", "fail", "skip", "error"), 0)
    for record in records:
        case_counts[record.get("outcome", "error")] = (
            case_counts.get(record.get("outcome", "error"), 0) + 1
        )
    function_counts = dict.fromkeys(("pass", "partial", "complete", "untested"), 0)
    for outcome in function_outcomes(plan, records).values():
        function_counts[outcome] += 1
    result = CellRunResult(cell_dir, status, case_counts, function_counts, wall_s)
    if status == 130:
        raise KeyboardInterrupt
    if status != 0:
        log = cell_dir / "logs" / "supervisor.log"
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
        raise CellFailed(
            f"cell {cell.cell_id} stopped early (exit {status}: {tail[0] if tail else 'no log'}); "
            f"{len(records)} records kept in {cell_dir}, resume with --resume {cell_dir.parent}",
            exit_status=status,
        )
    return result
