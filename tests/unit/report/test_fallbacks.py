"""The fallback tables: per-cell counts as recorded and with marked passes as failures,
the study's cells shown as unable to see fallbacks, and the case list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from portbench.report.fallbacks import fallback_cases, fallbacks, strict_records
from portbench.report.load import STUDY_BACKEND, Cell
from portbench_runner.contract import (
    CaseResult,
    Category,
    Evidence,
    Outcome,
    Plan,
    PlanAccelerator,
    PlanCase,
    PlanFunction,
    RecordFactory,
    Stage,
    WorkerInfo,
)

EIG = {
    "probe": "jax-lowering",
    "platform": "cuda",
    "seen": True,
    "fallback": True,
    "host_work": [{"kind": "hybrid_kernel", "what": "cuhybrid_eig_real"}],
    "host_work_dropped": 0,
}
CLEAN = {**EIG, "fallback": False, "host_work": []}
UNSEEN = {**CLEAN, "seen": False, "fallback": None, "note": "could not lower"}


def _record(function: str, name: str, outcome: str, evidence: Any = None, **extra: Any) -> Any:
    """What a record says, to be made by the contract's factory in :func:`_cell`."""
    return (function, name, outcome, evidence, extra)


def _cell(specs: list[Any], backend: str = "host") -> Cell:
    functions = []
    for function in sorted({spec[0] for spec in specs}):
        names = [spec[1] for spec in specs if spec[0] == function]
        cases = tuple(PlanCase(f"{function}::{n}", n, 1) for n in names)
        functions.append(PlanFunction(function, "c.py", cases, f"{function}_test.py"))
    plan = Plan(
        "jax/gpu/host", "jax", "host", backend, PlanAccelerator("gpu", "cuda"), "/m",
        tuple(functions), "portbench bench", schema=1,
    )  # fmt: skip
    make = RecordFactory(plan).record
    records = []
    for function, name, outcome, evidence, extra in specs:
        result = CaseResult(
            Outcome(outcome),
            Stage(extra["stage"]) if "stage" in extra else None,
            Category(extra["category"]) if "category" in extra else None,
            evidence=None if evidence is None else Evidence.from_json(evidence, "evidence"),
        )
        records.append(make(f"{function}::{name}", result, WorkerInfo(1, 0)))
    return Cell(Path("/x"), plan.cell, "jax", "gpu", "host", plan, None, (), tuple(records))


RECORDS = [
    _record("eig", "a", "pass", EIG),
    _record("eig", "b", "pass", CLEAN),
    _record("svd", "a", "pass", UNSEEN),
    _record("inv", "a", "fail", EIG, stage="call", category="fallback"),
    _record("sqrt", "a", "pass", None),
]


def test_counts_both_views() -> None:
    row = fallbacks([_cell(RECORDS)]).rows[0]
    # A plan of schema 1 predates the fallback settings.
    assert row[1] == "mark (plan before #20)"
    # probed, not seen, marked pass, failed fallback, functions touched
    assert row[2:7] == [3, 1, 1, 1, 2]
    assert row[7] == "3 / 0 / 1"  # eig, svd, sqrt pass; inv complete
    assert row[8] == "2 / 1 / 1"  # eig's marked pass now fails: partial


def test_a_cell_without_probes_says_so() -> None:
    row = fallbacks([_cell([_record("sqrt", "a", "pass")])]).rows[0]
    assert row[7:] == ["1 / 0 / 0", "no probe"]


def test_strict_view_turns_only_marked_passes_into_failures() -> None:
    strict = strict_records(_cell(RECORDS).records)
    assert [r.outcome.value for r in strict] == ["fail", "pass", "pass", "fail", "pass"]
    assert strict[0].category is Category.FALLBACK


def test_the_study_could_not_see_fallbacks() -> None:
    study = _cell([_record("eig", "a", "pass")], backend=STUDY_BACKEND)
    # The study's own count, beside the view it could not have.
    assert fallbacks([study]).rows[0][7:] == ["1 / 0 / 0", "not seen"]


def test_the_list_names_what_ran_on_the_host() -> None:
    rows = fallback_cases([_cell(RECORDS)]).rows
    assert [(r[1], r[2]) for r in rows] == [("eig::a", "pass (marked)"), ("inv::a", "fail")]
    assert rows[0][5] == "hybrid_kernel: cuhybrid_eig_real"
