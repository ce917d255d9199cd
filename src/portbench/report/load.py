"""Reading cells from run directories: plan, env, sessions and records, tolerating damage.

Every file goes through the typed results layer (:mod:`portbench.results`): no link is
followed, every line is read within a size bound, strict JSON only, and a line that is not
a valid record (cut short, not JSON, a field missing, a case recorded twice) is skipped and
counted, never fatal. A record, plan or session of a newer schema than this portbench reads
is refused with one sentence.

A cell that ran zero cases, or whose last session did not complete, is reported as failed,
never as an empty success.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from portbench_runner.contract import (
    CensusSettings,
    EnvDocument,
    JSONObject,
    Plan,
    SessionLine,
    StudyPlan,
)

from ..errors import PlanError, ResultsError
from ..outcomes import function_outcomes
from ..paths import results_dir
from ..plan import read_any_plan
from ..results import AnyRecord, read_env, read_results, read_sessions, read_study_results
from ..results.integrity import tampered_since
from ..results.safeio import open_nofollow

__all__ = ["Cell", "find_cells", "load_cell", "load_runs"]

#: Imported study cells (``portbench import-study``) are planned with this backend.
STUDY_BACKEND = "study"


@dataclass(frozen=True)
class Cell:
    path: Path
    cell_id: str
    framework: str
    accelerator: str
    profile: str
    plan: Plan | StudyPlan | None
    env: EnvDocument | None
    sessions: tuple[SessionLine, ...] = ()
    records: tuple[AnyRecord, ...] = ()
    unreadable_lines: int = 0
    """Lines of results.jsonl skipped as unreadable (their cases count as not recorded)."""
    unreadable_session_lines: int = 0
    """Lines of sessions.jsonl skipped as unreadable."""
    problems: tuple[str, ...] = ()
    """The first few reasons results.jsonl lines were skipped ('line N: why')."""
    label: str = ""
    """The user's name for the run: ``--label`` kept in plan.json, or ``report RUN_DIR=LABEL``."""
    display: str = ""
    """The name tables show, when the cell id alone is not enough (see :mod:`.names`)."""
    superseded: int = 0
    """Host records of a dead supervisor's cases that a resumed session's records replaced."""
    plan_problem: str = ""
    """Why plan.json did not read, when it did not."""
    tampered: str = ""
    """Why the cell's records are not the ones portbench wrote (``results.integrity``)."""

    @property
    def run_id(self) -> str:
        """The run directory's name (results/<run-id>/<cell>)."""
        return self.path.parent.name

    @property
    def name(self) -> str:
        """The cell as tables name it: its id, with run id and label where needed."""
        return self.display or self.cell_id

    @property
    def status(self) -> str:
        """``complete``, ``incomplete`` (stopped early, resumable), ``failed``, or
        ``tampered`` (its records were changed by another writer than portbench)."""
        if self.tampered:
            return "tampered"
        if self.plan is None or not self.records:
            return "failed"
        if not self.sessions or not self.sessions[-1].complete:
            return "incomplete"
        return "complete"

    def function_outcomes(self) -> dict[tuple[str, str | None], str]:
        """Outcome per (function, study test file) of every planned function, with or
        without records (the denominator), by the one rule in ``portbench.outcomes``."""
        return function_outcomes(self.plan, self.records)

    @property
    def is_study(self) -> bool:
        return isinstance(self.plan, StudyPlan) or (
            self.env is not None and self.env.backend == STUDY_BACKEND
        ) or self.backend == STUDY_BACKEND  # fmt: skip

    @property
    def census(self) -> CensusSettings | None:
        """A census cell's settings (None for any other cell)."""
        return self.plan.census if isinstance(self.plan, Plan) else None

    @property
    def study_facts(self) -> JSONObject:
        """A study cell's env ``study`` section (which report, which runs), or {}."""
        return self.env.section("study") if self.env is not None else {}

    @property
    def device_name(self) -> str:
        return (self.env.device_name if self.env is not None else "") or "?"

    @property
    def backend(self) -> str:
        if self.env is not None and self.env.backend:
            return self.env.backend
        return self.plan.backend if self.plan is not None else "?"


def find_cells(paths: list[Path]) -> list[Path]:
    """Cell directories under ``paths`` (a run dir, a cell dir, or a folder of runs)."""
    found: set[Path] = set()
    for base in paths:
        if not base.exists():
            raise ResultsError(f"{base} does not exist; pass run directories (results/<run-id>)")
        for marker in ("plan.json", "results.jsonl"):
            found.update(p.parent for p in base.rglob(marker))
    return sorted(found)


def _plan(path: Path) -> tuple[Plan | StudyPlan | None, str]:
    """The cell's plan, or None and why (a missing or damaged plan leaves the cell listed as
    failed, never the report unfinished; a newer schema is refused with one sentence)."""
    try:
        return read_any_plan(path), ""
    except PlanError as exc:
        if "newer than this portbench" in str(exc):
            raise ResultsError(str(exc)) from None
        return None, str(exc)


def load_cell(path: Path) -> Cell:
    plan, plan_problem = _plan(path / "plan.json")
    env = read_env(path / "env.json")
    sessions, bad_sessions = read_sessions(path / "sessions.jsonl")
    study = isinstance(plan, StudyPlan) or (env is not None and env.backend == STUDY_BACKEND)
    records: tuple[AnyRecord, ...]
    if study:
        study_read = read_study_results(path / "results.jsonl")
        records, skipped, problems, superseded = (
            study_read.records,
            study_read.skipped,
            study_read.problems,
            0,
        )
    else:
        read = read_results(path / "results.jsonl")
        records, skipped, problems, superseded = (
            read.records,
            read.skipped,
            read.problems,
            read.superseded,
        )
    cell_id = (
        plan.cell if plan is not None else env.cell if env is not None and env.cell else
        records[0].cell if records else path.name
    )  # fmt: skip
    parts = cell_id.split("/")
    framework, accelerator, profile = ([*parts, "?", "?", "?"])[:3]
    label = plan.label if plan is not None else None
    return Cell(
        path,
        cell_id,
        framework,
        accelerator,
        profile,
        plan,
        env,
        tuple(sessions),
        records,
        skipped,
        bad_sessions,
        problems,
        label or "",
        superseded=superseded,
        plan_problem=plan_problem,
        tampered=_tampered(path, tuple(sessions)),
    )


def _tampered(path: Path, sessions: tuple[SessionLine, ...]) -> str:
    """Why the cell's records are not portbench's (a session said so, or the file changed
    after the last session checked it), or ''."""
    try:
        fd = open_nofollow(path / "results.jsonl", os.O_RDONLY)
    except (OSError, ResultsError):
        return ""
    try:
        return tampered_since(sessions, fd) or ""
    finally:
        os.close(fd)


#: Kept runs (results/reference/) are the project's, not the user's: left out by default.
REFERENCE = "reference"


def _results(cells: list[Cell]) -> list[Cell]:
    """The cells whose records are results: a mutation run's are not (issue 33)."""
    return [c for c in cells if not (isinstance(c.plan, Plan) and c.plan.is_mutation)]


def load_runs(paths: list[Path] | None = None, with_reference: bool = False) -> list[Cell]:
    """Every cell under ``paths``; by default everything under results/ except the
    project's reference runs (results/reference/), unless ``with_reference``. A mutation
    run's cells are left out: their records are never results."""
    if paths:
        return _results([load_cell(p) for p in find_cells(paths)])
    root = results_dir()
    if not root.exists():
        return []
    cells = find_cells([root])
    if not with_reference:
        cells = [p for p in cells if not p.is_relative_to(root / REFERENCE)]
    return _results([load_cell(p) for p in cells])
