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
from pathlib import Path
from typing import Any

from rich.console import Console

from . import __version__
from .accelerators import get_accelerator, require_present
from .backends import BuildOptions
from .cellrun import CellRunResult, choose_backend, execute_cell, new_run_dir
from .errors import UsageError
from .manifest import FRAMEWORKS
from .paths import manifests_dir
from .plan import CellSpec, check_label, fallback_cli_args, read_plan
from .profiles import check_profile
from .results import read_document
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


def _check_case_files(plan: dict[str, Any], root: Path) -> None:
    """Every case file hashes here as it did in the origin run, or one sentence says which."""
    for function in plan["functions"]:
        expected = function.get("case_file_sha256")
        if not expected:
            continue
        path = root / str(function["case_file"])
        try:
            actual = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            actual = "missing"
        if actual != expected:
            raise UsageError(
                f"{function['case_file']} is not the case file the origin ran ({expected[:12]}, "
                f"here {actual[:12]}): check out the portbench version that made that run "
                f"({plan.get('portbench_version', 'unknown')}) to rerun it exactly"
            )


def _origin_image(backend: str, plan: dict[str, Any], build: BuildOptions) -> BuildOptions:
    """The origin's image, when no --image is given and it is here (docker only)."""
    image = plan.get("image")
    if backend != "docker" or build.image is not None or not isinstance(image, dict):
        return build
    tag = image.get("tag")
    if not isinstance(tag, str):
        return build
    from docker.errors import ImageNotFound

    from .images.build import docker_client

    try:
        docker_client().images.get(tag)
    except ImageNotFound:
        return build
    return BuildOptions(build.base, build.ca_bundle, build.find_links, tag)


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
    framework, profile = str(plan["framework"]), str(plan["profile"])
    was = plan["accelerator"]
    target = get_accelerator(accelerator or str(was.get("id")))
    if target.flavor != was.get("flavor"):
        raise UsageError(
            f"the origin ran on {was.get('id')} ({was.get('flavor')}); a rerun keeps the flavor "
            f"and its image, and {target.id} is {target.flavor}: run `portbench bench "
            f"--framework {framework} --accelerator {target.id}` for a new cell instead"
        )
    check_profile(profile, framework, target.flavor)
    if framework in FRAMEWORKS:
        root = manifests_dir() / framework
    else:
        root = Path(str(plan["manifest_root"]))
    _check_case_files(plan, root)
    requested = backend or ("host" if profile == "host" else str(plan["backend"]))
    build = _origin_image(requested, plan, build or BuildOptions())
    chosen = choose_backend(requested, profile, console, None, build)
    require_present(target)
    cell_name = f"{framework}-{target.id}-{profile}"
    cell_dir = (run_dir or new_run_dir()) / cell_name
    if cell_dir.exists():
        raise UsageError(f"{cell_dir} exists already; pass another --run-dir")
    where = "pass --run-dir with a directory you can write"
    require_writable(cell_dir, where)
    prepared = chosen.prepare(framework, target.flavor, profile)
    previous = plan.get("image") if isinstance(plan.get("image"), dict) else None
    if previous and prepared.image and previous.get("id") != prepared.image.get("id"):
        console.print(
            f"[yellow]note:[/] the origin ran in image {str(previous.get('id'))[:19]}, this "
            f"rerun in {str(prepared.image.get('id'))[:19]} (same lock; another build)"
        )
    env = read_document(origin_dir / "env.json", "env", schema_max=1) or {}
    host = env.get("host") if isinstance(env.get("host"), dict) else {}
    new_plan = {
        **plan,
        "cell": f"{framework}/{target.id}/{profile}",
        "accelerator": target.to_plan(),
        "backend": chosen.name,
        "manifest_root": prepared.manifest_root or str(root),
        "image": prepared.image,
        "installer": prepared.installer,
        # The origin's fallback settings stay in the plan, and so in its cases' reruns.
        "rerun_prefix": CellSpec(framework, target, profile, chosen.name).rerun_prefix(
            "bench", *fallback_cli_args(plan)
        ),
        "portbench_version": __version__,
        "origin": {
            "cell_dir": str(origin_dir.resolve()),
            "cell": plan["cell"],
            "plan_sha256": hashlib.sha256(
                read_bounded(origin_dir / "plan.json", MAX_PLAN_BYTES)
            ).hexdigest(),
            "accelerator": was.get("id"),
            "image_id": (previous or {}).get("id"),
            "host": (host or {}).get("hostname"),
            "started_at": env.get("started_at"),
            "portbench_version": plan.get("portbench_version"),
        },
    }
    # The origin's label named the origin's run; this one carries only the label it is given.
    new_plan.pop("label", None)
    if label is not None:
        new_plan["label"] = label
    make_dir(cell_dir, where)
    console.print(f"rerun of {origin_dir} ({plan['cell']}) as {cell_dir}")
    return execute_cell(str(new_plan["cell"]), chosen, prepared, new_plan, cell_dir, False, console)
