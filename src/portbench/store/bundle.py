"""One cell's files read through the typed results layer: plan, env, sessions, records.

Two ways to read: *tolerant*, for run directories on this machine (a damaged line is
skipped and counted, as the report does), and *strict*, for archives from elsewhere: there
every file must read whole, every record must be of the cell's plan, and anything else
refuses the cell in one sentence (:class:`CellRefused`), so an archive is stored whole or
not at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from portbench_runner.contract import EnvDocument, Plan, SessionLine, StudyPlan

from ..errors import PlanError, ResultsError
from ..plan import read_any_plan
from ..results import (
    AnyRecord,
    CaseRecord,
    read_env,
    read_results,
    read_sessions,
    read_study_results,
)

__all__ = ["CellBundle", "CellRefused", "NotACell", "read_cell"]


class CellRefused(ResultsError):
    """A cell that does not read whole through the typed layer (strict reading)."""


class NotACell(ResultsError):
    """A folder whose records are not results (a mutation run's), or with no plan to key
    them by (tolerant reading skips it, saying why)."""


@dataclass(frozen=True)
class CellBundle:
    """What one cell directory holds, typed, and where it was read."""

    run_id: str
    """The run directory's name (``results/<run-id>/<cell>``)."""
    cell_dir: str
    plan: Plan | StudyPlan
    env: EnvDocument | None
    sessions: tuple[SessionLine, ...]
    records: tuple[AnyRecord, ...]
    skipped: int = 0
    """Lines that did not read (tolerant reading only) or were not of this cell."""
    problems: tuple[str, ...] = ()

    @property
    def is_study(self) -> bool:
        return isinstance(self.plan, StudyPlan)


def _of_plan(
    plan: Plan | StudyPlan, records: tuple[AnyRecord, ...]
) -> tuple[list[AnyRecord], list[str]]:
    """The records that belong to ``plan``'s cell and cases, and why the others do not."""
    kept: list[AnyRecord] = []
    wrong: list[str] = []
    for record in records:
        if record.cell != plan.cell:
            wrong.append(f"a record of cell {record.cell[:60]!r}, not {plan.cell!r}")
        elif isinstance(plan, Plan) and isinstance(record, CaseRecord) and record.case not in plan:
            wrong.append(f"a record of {record.case[:80]!r}, which the plan does not hold")
        else:
            kept.append(record)
    return kept, wrong


def _refuse(where: str, why: str) -> CellRefused:
    return CellRefused(f"{where}: {why}")


def read_cell(path: Path, strict: bool, where: str | None = None) -> CellBundle:
    """The cell in ``path`` (a directory holding plan.json), read through the typed layer.
    ``where`` names it in sentences (an archive's member path; default: ``path``)."""
    name = where or str(path)
    try:
        plan = read_any_plan(path / "plan.json")
    except PlanError as exc:
        if strict:
            raise _refuse(name, f"its plan does not read ({exc})") from None
        raise NotACell(f"{name}: not ingested, its plan does not read ({exc})") from None
    if isinstance(plan, Plan) and plan.is_mutation:
        raise NotACell(f"{name}: not ingested, a mutation run's records are never results")
    env = read_env(path / "env.json")
    if env is None and strict and os.path.lexists(path / "env.json"):
        raise _refuse(name, "its env.json does not read as an env document")
    if env is not None and env.cell and env.cell != plan.cell:
        if strict:
            raise _refuse(name, f"its env.json is of cell {env.cell[:60]!r}, not {plan.cell!r}")
        env = None
    sessions, bad_sessions = read_sessions(path / "sessions.jsonl")
    read: tuple[AnyRecord, ...]
    if isinstance(plan, StudyPlan):
        study = read_study_results(path / "results.jsonl")
        read, skipped, problems = study.records, study.skipped, study.problems
    else:
        results = read_results(path / "results.jsonl")
        read, skipped, problems = results.records, results.skipped, results.problems
    records, wrong = _of_plan(plan, read)
    if strict:
        if skipped:
            raise _refuse(name, f"{skipped} record line(s) do not read ({'; '.join(problems)})")
        if bad_sessions:
            raise _refuse(name, f"{bad_sessions} session line(s) do not read")
        if wrong:
            raise _refuse(name, wrong[0])
    return CellBundle(
        run_id=path.parent.name,
        cell_dir=path.name,
        plan=plan,
        env=env,
        sessions=tuple(sessions),
        records=tuple(records),
        skipped=skipped + len(wrong) + bad_sessions,
        problems=(*problems, *wrong[:3]),
    )
