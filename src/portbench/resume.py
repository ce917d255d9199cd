"""Which cell ``bench --resume DIR`` finishes, and how it ran, read from the cell's plan.

The plan a cell was compiled with (``plan.json``) names its framework, accelerator, profile
and backend, so ``--resume DIR`` alone is enough; options given beside it only pick among
the cells of a run directory, and may not contradict the plan.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from portbench_runner.contract import MAX_DOCUMENT_BYTES, Plan

from .errors import ResultsError, UsageError
from .plan import read_plan
from .results import read_env
from .results.safeio import read_bounded

__all__ = ["ResumeTarget", "check_plan_unchanged", "find_resumed_cell"]

PLAN = "plan.json"


def check_plan_unchanged(cell_dir: Path) -> None:
    """Refuse to resume a cell whose plan.json is not the one its records came from.

    The cell's supervisor hashed plan.json when it first ran (env.json's ``plan_sha256``); a
    plan edited since (a case file pointed elsewhere, other cases, other timing) would add
    records of another plan to the cell's. A cell that never got as far as its env.json has
    no hash to compare with: its plan is still checked by the typed reader.
    """
    env = read_env(cell_dir / "env.json")
    if env is None or not env.plan_sha256:
        return
    try:
        digest = hashlib.sha256(read_bounded(cell_dir / PLAN, MAX_DOCUMENT_BYTES)).hexdigest()
    except (OSError, ResultsError):
        return  # the plan reader says what is wrong with it, in its own sentence
    if digest != env.plan_sha256:
        raise UsageError(
            f"{cell_dir / PLAN} changed since the cell first ran (it no longer hashes to the "
            "plan_sha256 its env.json recorded), so its records are not of this plan; "
            "restore the plan, or start a new run with bench"
        )


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
        check_plan_unchanged(run_dir)
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
        check_plan_unchanged(chosen[0].cell_dir)
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
