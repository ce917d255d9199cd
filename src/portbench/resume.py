"""Which cell ``bench --resume DIR`` finishes, and how it ran, read from the cell's plan.

The plan a cell was compiled with (``plan.json``) names its framework, accelerator, profile
and backend, so ``--resume DIR`` alone is enough; options given beside it only pick among
the cells of a run directory, and may not contradict the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from portbench_runner.contract import Plan

from .errors import UsageError
from .plan import read_plan

__all__ = ["ResumeTarget", "find_resumed_cell"]

PLAN = "plan.json"


@dataclass(frozen=True)
class ResumeTarget:
    cell_dir: Path
    framework: str
    accelerator: str
    profile: str
    backend: str

    @property
    def cell_id(self) -> str:
        return f"{self.framework}/{self.accelerator}/{self.profile}"


def _target(cell_dir: Path, plan: Plan) -> ResumeTarget:
    return ResumeTarget(cell_dir, plan.framework, plan.accelerator.id, plan.profile, plan.backend)


def _matches(target: ResumeTarget, wanted: dict[str, str | None]) -> bool:
    return all(value is None or getattr(target, key) == value for key, value in wanted.items())


def _wanted_text(wanted: dict[str, str | None]) -> str:
    return " ".join(f"--{key} {value}" for key, value in wanted.items() if value is not None)


def find_resumed_cell(
    run_dir: Path,
    framework: str | None = None,
    accelerator: str | None = None,
    profile: str | None = None,
) -> ResumeTarget:
    """The cell of ``run_dir`` (a cell directory, or a run directory holding cells) to resume.

    Every failure is one sentence: a missing directory, one with no cell, several cells
    and nothing to choose between them, or options that contradict the cell's plan.
    """
    wanted = {"framework": framework, "accelerator": accelerator, "profile": profile}
    if not run_dir.exists():
        raise UsageError(
            f"{run_dir} does not exist; pass the run directory (results/<run-id>) or the cell "
            "directory that a bench run created"
        )
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir} is not a directory; pass the run directory of a bench run")
    if (run_dir / PLAN).exists():
        target = _target(run_dir, read_plan(run_dir / PLAN))
        if not _matches(target, wanted):
            raise UsageError(
                f"{run_dir} is the cell {target.cell_id}, not what {_wanted_text(wanted)} "
                "names; drop those options (the plan says how the cell ran)"
            )
        return target
    cells = sorted(p for p in run_dir.iterdir() if p.is_dir() and (p / PLAN).exists())
    if not cells:
        raise UsageError(
            f"{run_dir} holds no cell (no {PLAN} in it or in a folder of it); pass the run "
            "directory (results/<run-id>) or the cell directory that a bench run created"
        )
    if len(cells) == 1:
        return find_resumed_cell(cells[0], framework, accelerator, profile)
    targets = [_target(cell, read_plan(cell / PLAN)) for cell in cells]
    chosen = [t for t in targets if _matches(t, wanted)]
    names = ", ".join(t.cell_dir.name for t in targets)
    if len(chosen) == 1:
        return chosen[0]
    if not chosen:
        raise UsageError(
            f"no cell of {run_dir} is {_wanted_text(wanted)} (it holds {names}); pass one "
            "of those cell directories"
        )
    raise UsageError(
        f"{run_dir} holds {len(chosen)} cells ({', '.join(t.cell_dir.name for t in chosen)}); "
        f"pass one cell directory (e.g. --resume {chosen[0].cell_dir}) or --framework and "
        "--accelerator to pick one"
    )
