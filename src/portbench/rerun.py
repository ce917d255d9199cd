"""Rerunning an earlier cell's exact plan here, as a new run that names its origin.

Same cases, seeds, case-file hashes, timing settings and timeouts; the accelerator may be
this machine's device of the same flavor (a T4 run rerun on an A100, say). The case
files here must hash as they did there: a rerun of other cases would compare unlike with
like, so it is refused, naming the file. The image is, in order: ``--image``, the image
the origin ran in when it is here (tag and lock checked), else the profile's image built
or reused as ``bench`` would; the new plan records which, and ``origin`` says where the
plan came from.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from portbench_runner.contract import PLAN_SCHEMA, Origin, Plan

from . import __version__
from .accelerators import get_accelerator, require_present
from .backends import BuildOptions
from .cellrun import CellRunResult, choose_backend, execute_cell, new_run_dir
from .errors import UsageError
from .manifest import FRAMEWORKS
from .paths import manifests_dir
from .plan import CellSpec, check_case_files, check_label, plan_accelerator, read_plan
from .profiles import check_profile
from .results import read_env
from .results.safeio import read_bounded
from .writable import make_dir, require_writable

__all__ = ["origin_cell", "rerun_cell"]

#: A plan of every case of a manifest is well under this; read_plan has read it already.
MAX_PLAN_BYTES = 64 << 20


def origin_cell(path: Path) -> Path:
    """The cell directory ``path`` names: itself, or the only cell of a run directory."""
    if not path.is_dir():
        raise UsageError(f"{path} does not exist; pass a cell directory (results/<run-id>/<cell>)")
    if (path / "plan.json").is_file():
        return path
    cells = sorted(p.parent.name for p in path.glob("*/plan.json"))
    if len(cells) == 1:
        return path / cells[0]
    if not cells:
        raise UsageError(f"{path} holds no plan.json; pass the cell directory of an earlier run")
    raise UsageError(
        f"{path} holds {len(cells)} cells ({', '.join(cells[:6])}); pass one of them: {path}/<cell>"
    )


def _origin_image(backend: str, plan: Plan, build: BuildOptions) -> BuildOptions:
    """The origin's image, when no --image is given and it is here (docker only)."""
    if backend != "docker" or build.image is not None or plan.image is None:
        return build
    from docker.errors import ImageNotFound

    from .images.build import docker_client

    try:
        docker_client().images.get(plan.image.tag)
    except ImageNotFound:
        return build
    return BuildOptions(build.base, build.ca_bundle, build.find_links, plan.image.tag)


def _origin(origin_dir: Path, plan: Plan) -> Origin:
    """Where the rerun's plan came from: the cell, its plan's hash, where it ran."""
    env = read_env(origin_dir / "env.json")
    return Origin(
        cell=plan.cell,
        cell_dir=str(origin_dir.resolve()),
        plan_sha256=hashlib.sha256(
            read_bounded(origin_dir / "plan.json", MAX_PLAN_BYTES)
        ).hexdigest(),
        accelerator=plan.accelerator.id,
        image_id=None if plan.image is None else plan.image.id,
        host=(env.hostname or None) if env is not None else None,
        started_at=env.started_at if env is not None else None,
        portbench_version=plan.portbench_version,
    )


def rerun_cell(
    origin: Path,
    console: Console,
    accelerator: str | None = None,
    backend: str | None = None,
    build: BuildOptions | None = None,
    run_dir: Path | None = None,
    label: str | None = None,
) -> CellRunResult:
    """Run the plan of the cell at ``origin`` here, as a new run; what it recorded."""
    label = check_label(label)  # a bad label costs a second, not an environment's build
    origin_dir = origin_cell(origin)
    plan = read_plan(origin_dir / "plan.json")
    framework, profile, was = plan.framework, plan.profile, plan.accelerator
    target = get_accelerator(accelerator or was.id)
    if target.flavor != was.flavor:
        raise UsageError(
            f"the origin ran on {was.id} ({was.flavor}); a rerun keeps the flavor and its "
            f"image, and {target.id} is {target.flavor}: run `portbench bench --framework "
            f"{framework} --accelerator {target.id}` for a new cell instead"
        )
    check_profile(profile, framework, target.flavor)
    root = manifests_dir() / framework if framework in FRAMEWORKS else Path(plan.manifest_root)
    check_case_files(
        plan,
        root,
        "check out the portbench version that made that run "
        f"({plan.portbench_version or 'unknown'}) to rerun it exactly",
    )
    requested = backend or ("host" if profile == "host" else plan.backend)
    build = _origin_image(requested, plan, build or BuildOptions())
    chosen = choose_backend(requested, profile, console, None, build)
    require_present(target)
    cell_dir = (run_dir or new_run_dir()) / f"{framework}-{target.id}-{profile}"
    if cell_dir.exists():
        raise UsageError(f"{cell_dir} exists already; pass another --run-dir")
    where = "pass --run-dir with a directory you can write"
    require_writable(cell_dir, where)
    prepared = chosen.prepare(framework, target.flavor, profile)
    previous = plan.image
    if previous and prepared.image and previous.id != prepared.image.id:
        console.print(
            f"[yellow]note:[/] the origin ran in image {previous.id[:19]}, this rerun in "
            f"{prepared.image.id[:19]} (same lock; another build)"
        )
    spec = CellSpec(framework, target, profile, chosen.name)
    new_plan = replace(
        plan.in_environment(prepared.cell_environment),
        schema=PLAN_SCHEMA,
        cell=spec.cell_id,
        accelerator=plan_accelerator(target),
        backend=chosen.name,
        manifest_root=prepared.manifest_root or str(root),
        # The origin's fallback settings stay in the plan, and so in its cases' reruns.
        rerun_prefix=spec.rerun_prefix("bench", *plan.fallback.cli_args()),
        portbench_version=__version__,
        origin=_origin(origin_dir, plan),
        # The origin's label named the origin's run; this one carries only its own.
        label=label,
    )
    make_dir(cell_dir, where)
    console.print(f"rerun of {origin_dir} ({plan.cell}) as {cell_dir}")
    return execute_cell(new_plan.cell, chosen, prepared, new_plan, cell_dir, False, console)
