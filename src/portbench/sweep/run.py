"""Running a sweep: one cell per release, in order, in one run directory, resumable.

For each release not yet settled: its environment (lock made with uv, image built or
reused; :func:`portbench.releases.images.release_image_spec`), then its cell, as `bench
--release` (or `census`) runs it. A cell's directory that exists already is resumed, never
started again. Once a cell has landed its release's image is removed (Docker), unless the
sweep keeps images: a sweep then needs disk for one release's image at a time, not all.

A release that no index serves, or that resolves for none of the base images' Pythons, is
settled as ``skipped`` with its sentence; one whose environment fails otherwise, or whose
cell stops early, as ``failed`` (a resumed sweep tries it again). Ctrl-C stops the sweep
with what was recorded kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from portbench_runner.contract import TimingSettings

from ..backends import BuildOptions
from ..cellrun import BenchRequest, choose_backend, new_run_dir, run_cell
from ..errors import CellFailed, CellInterrupted, EnvironmentBuildError, PortbenchError
from ..plan import CellSpec, PlanOptions
from ..releases.locking import ReleaseUnavailable
from ..releases.spec import Release
from .state import (
    FAILED,
    LANDED,
    SKIPPED,
    Settled,
    SweepPlan,
    read_settled,
    read_sweep_plan,
    record_settled,
    write_sweep_plan,
)

__all__ = ["SweepOutcome", "cell_dir_name", "run_sweep", "start_sweep"]


@dataclass
class SweepOutcome:
    run_dir: Path
    settled: dict[str, Settled] = field(default_factory=dict)
    wall_s: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for s in self.settled.values() if s.status == status)


def cell_dir_name(plan: SweepPlan, release: Release) -> str:
    from ..accelerators import get_accelerator

    cell = CellSpec(release.framework, get_accelerator(plan.accelerator), release.tag, "")
    if plan.kind == "census":
        from ..census.run import census_dir_name

        return census_dir_name(cell)
    return cell.dir_name


def start_sweep(plan: SweepPlan, run_dir: Path | None) -> Path:
    """Write a new sweep's plan into its run directory (refused if one is there)."""
    # Absolute: cells mount their files into containers, which take no relative path.
    target = (run_dir or new_run_dir()).absolute()
    write_sweep_plan(target, plan)
    return target


def _prebuild(
    plan: SweepPlan, release: Release, build: BuildOptions, note: Callable[[str], None]
) -> dict[str, object]:
    """Docker: build (or reuse) the release's image before its cell, for its size and
    build time; the cell then reuses it."""
    from ..accelerators import get_accelerator
    from ..images.build import ensure_image
    from ..releases.images import release_image_spec

    flavor = get_accelerator(plan.accelerator).flavor
    spec = release_image_spec(release, flavor, note, build.base, build.ca_bundle, build.find_links)
    image = ensure_image(spec, note)
    return {
        "tag": image.tag,
        "bytes": image.size_bytes,
        "built": image.built,
        "build_s": round(image.seconds, 1),
        "python": spec.lock.python,
    }


def _remove_image(tag: str, note: Callable[[str], None]) -> bool:
    from ..images.build import docker_client
    from ..releases.images import remove_release_image

    try:
        freed = remove_release_image(docker_client(), tag)
    except PortbenchError as exc:
        note(f"kept {tag}: {exc}")
        return False
    note(f"removed {tag} ({freed / 1e9:.2f} GB freed)")
    return True


def _clear_stale_containers(cell_dir: Path, note: Callable[[str], None]) -> None:
    """Remove containers a killed sweep left for this cell (labelled with its directory):
    the cell resumes in a new one, and the release's image can only go once they are gone."""
    from docker.errors import APIError, NotFound

    from ..images.build import docker_client

    label = f"org.portbench.run-dir={cell_dir.resolve()}"
    for container in docker_client().containers.list(all=True, filters={"label": label}):
        try:
            container.remove(force=True)
        except (APIError, NotFound):
            continue
        note(f"removed container {container.short_id} a stopped sweep left for {cell_dir.name}")


def _run_one(
    plan: SweepPlan,
    release: Release,
    run_dir: Path,
    backend: str,
    options: PlanOptions,
    build: BuildOptions,
    console: Console,
) -> Path:
    """Run (or resume) one release's cell; its directory."""
    cell_dir = run_dir / cell_dir_name(plan, release)
    resume = cell_dir if (cell_dir / "plan.json").exists() else None
    if resume is not None and backend == "docker":
        _clear_stale_containers(cell_dir, lambda line: console.print(line, style="dim"))
    if plan.kind == "census":
        from dataclasses import replace

        from ..census.commands import CENSUS_MAX_SAMPLES, CENSUS_WARM_BUDGET_S, CENSUS_WARMUP_S
        from ..census.plan import CensusOptions
        from ..census.run import CensusRequest, run_census

        # As `portbench census` runs it: a small warm budget per case (thousands of cases).
        census = CensusOptions(timing=plan.timing)
        timing: TimingSettings = {
            "warm_budget_s": CENSUS_WARM_BUDGET_S,
            "adaptive_budget_s": CENSUS_WARM_BUDGET_S,
            "warmup_s": CENSUS_WARMUP_S,
            "adaptive_max_samples": CENSUS_MAX_SAMPLES,
        }
        census = replace(census, plan=replace(census.plan, timing=timing))
        result = run_census(
            CensusRequest(
                release.framework,
                plan.accelerator,
                release.tag,
                backend,
                options=census,
                run_dir=None if resume else run_dir,
                resume=resume,
                build=build,
            ),
            console,
        )
        return result.cell_dir
    request = BenchRequest(
        framework=release.framework,
        accelerator=plan.accelerator,
        profile=release.tag,
        backend=backend,
        options=options,
        run_dir=None if resume else run_dir,
        resume=resume,
        build=build,
    )
    return run_cell(request, console).cell_dir


def run_sweep(
    run_dir: Path,
    options: PlanOptions,
    console: Console,
    build: BuildOptions | None = None,
) -> SweepOutcome:
    """Run every release of the sweep in ``run_dir`` not yet settled, oldest first."""
    build = build or BuildOptions()
    run_dir = run_dir.absolute()
    plan = read_sweep_plan(run_dir)
    settled = read_settled(run_dir)
    started = time.monotonic()
    # One backend for every cell of the sweep (auto: docker where an engine answers).
    backend = choose_backend(plan.backend, plan.releases[0].tag, console, build=build).name

    def note(line: str) -> None:
        console.print(line, style="dim", markup=False)

    for number, release in enumerate(plan.releases, 1):
        done = settled.get(release.pin)
        if done is not None and done.status in (LANDED, SKIPPED):
            console.print(f"[{number}/{len(plan.releases)}] {release.pin}: {done.status} already")
            continue
        console.print(f"[bold][{number}/{len(plan.releases)}] {release.pin}[/]")
        cell_started = time.monotonic()
        image: dict[str, object] = {}
        try:
            if backend == "docker":
                image = _prebuild(plan, release, build, note)
            cell_dir = _run_one(plan, release, run_dir, backend, options, build, console)
        except ReleaseUnavailable as exc:
            line = Settled(release.pin, SKIPPED, reason=str(exc))
        except CellInterrupted:
            raise CellInterrupted(
                f"the sweep was interrupted during {release.pin}; what was recorded is kept; "
                f"resume with portbench sweep --resume {run_dir}",
                run_dir=run_dir,
            ) from None
        except (CellFailed, EnvironmentBuildError) as exc:
            line = Settled(
                release.pin,
                FAILED,
                reason=str(exc),
                wall_s=round(time.monotonic() - cell_started, 1),
                image=image,
            )
        else:
            if image and not plan.keep_images:
                image["removed"] = _remove_image(str(image["tag"]), note)
            line = Settled(
                release.pin,
                LANDED,
                cell=cell_dir.name,
                wall_s=round(time.monotonic() - cell_started, 1),
                image=image,
            )
        record_settled(run_dir, line)
        settled[release.pin] = line
        if line.status != LANDED:
            console.print(
                f"[yellow]{release.pin}: {line.status}[/] ({line.reason})", soft_wrap=True
            )
    return SweepOutcome(run_dir, settled, time.monotonic() - started)
