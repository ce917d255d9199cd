"""The predicted cells' tables and their check against the study, on small made cells."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from portbench.report.load import Cell
from portbench.report.predicted import is_predicted, predicted_outcomes, predicted_summary
from portbench.report.prediction_check import confusion, prediction_checks
from portbench_runner.contract import (
    CaseRecord,
    CaseResult,
    Category,
    EnvDocument,
    Outcome,
    Plan,
    PlanAccelerator,
    PlanCase,
    PlanFunction,
    Prediction,
    PredictionMethod,
    PredictionSettings,
    PredictionVerdict,
    RecordFactory,
    Stage,
    WorkerInfo,
)

FUNCTIONS = {"f.eig": ["a", "b"], "f.add": ["a"], "f.sort": ["a"], "f.save": ["a"]}
T4 = PredictionSettings(PredictionMethod.LOWERED, "gpu-t4", "cuda")


def _plan(cell: str, prediction: PredictionSettings | None = None) -> Plan:
    functions = tuple(
        PlanFunction(
            f,
            f"cases/{f}.py",
            tuple(PlanCase(f"{f}::{c}", c, 1) for c in cases),
            f"{f}_test.py",
        )
        for f, cases in FUNCTIONS.items()
    )
    return Plan(
        cell=cell,
        framework="jax",
        profile=cell.split("/")[2],
        backend="host",
        accelerator=PlanAccelerator("cpu", "cpu"),
        manifest_root="/m",
        functions=functions,
        rerun_prefix="portbench bench",
        prediction=prediction,
    )


def _record(
    plan: Plan, case: str, outcome: str, verdict: str | None = None, category: str = ""
) -> CaseRecord:
    failed = outcome == "fail"
    said = None
    if verdict is not None:
        said = Prediction(T4.method, T4.target, Outcome.PASS, verdict=PredictionVerdict(verdict))
    result = CaseResult(
        Outcome(outcome),
        Stage.CALL if failed else None,
        Category(category or "not_implemented") if failed else None,
        reason="not predictable: x" if outcome == "skip" else None,
        prediction=said,
    )
    return RecordFactory(plan).record(case, result, WorkerInfo(1, 0))


def _cell(plan: Plan, records: list[CaseRecord], env: EnvDocument | None = None) -> Cell:
    _, accelerator, profile = plan.cell.split("/")
    return Cell(
        Path(plan.cell.replace("/", "-")),
        plan.cell,
        "jax",
        accelerator,
        profile,
        plan,
        env,
        (),
        tuple(records),
    )


def _predicted() -> Cell:
    plan = _plan("jax/gpu-t4-predicted/x", T4)
    records = [
        _record(plan, "f.eig::a", "fail", "fail"),
        _record(plan, "f.eig::b", "pass", "pass"),
        _record(plan, "f.add::a", "fail", "fail"),  # a false alarm
        _record(plan, "f.sort::a", "pass", "pass"),  # a miss: the study failed it
        _record(plan, "f.save::a", "skip", "not_predictable"),
    ]
    return _cell(plan, records)


def _study() -> Cell:
    plan = _plan("jax/gpu-t4/study")
    records = [
        _record(plan, "f.eig::a", "fail"),
        _record(plan, "f.add::a", "pass"),
        _record(plan, "f.sort::a", "fail"),
        _record(plan, "f.save::a", "pass"),
    ]
    env = EnvDocument(plan.cell, facts={"study": {"report": "t4_vm/gpu/report.json"}})
    return _cell(plan, records, env)


def test_the_confusion_counts_functions_with_both_a_study_outcome_and_a_prediction() -> None:
    matrix = confusion(_predicted(), _study())
    assert matrix.n == 3
    assert matrix.count(True, True) == 1  # eig
    assert matrix.count(False, True) == 1  # add
    assert matrix.count(True, False) == 1  # sort
    assert matrix.not_predicted == ("f.save",)


def test_the_check_gives_wilson_intervals_and_lists_each_miss() -> None:
    summary, misses = prediction_checks([_predicted()], [_study()])
    (row,) = summary.rows
    assert row[3:8] == [3, 1, 1, 1, 0]
    assert row[8].startswith("1/2 = 0.50 [") and row[9].startswith("1/2 = 0.50 [")
    low, high = (float(x) for x in row[8].split("[")[1].rstrip("]").split(", "))
    assert 0.0 < low < 0.5 < high < 1.0
    assert {(r[1], r[2], r[3]) for r in misses.rows} == {
        ("f.add", "false alarm", "unexplained"),
        ("f.sort", "missed", "unexplained"),
    }


def test_no_recorded_failure_gives_n_a_recall() -> None:
    study = _study()
    passing = tuple(
        replace(r, outcome=Outcome.PASS, category=None, stage=None)
        for r in study.records
        if isinstance(r, CaseRecord)
    )
    clean = replace(study, records=passing)
    (row,), _ = (t.rows for t in prediction_checks([_predicted()], [clean]))
    assert row[9] == "n/a"


def test_a_crash_in_a_predicted_cell_is_not_a_predicted_failure() -> None:
    cell = _predicted()
    assert isinstance(cell.plan, Plan)
    crash = _record(cell.plan, "f.save::a", "fail", category="crash")
    assert crash.prediction is not None and crash.prediction.verdict is None
    cell = replace(cell, records=(*cell.records[:4], crash))
    assert predicted_outcomes(cell)[("f.save", "f.save_test.py")] == "untested"
    assert is_predicted(cell)
    (row,) = predicted_summary([cell]).rows
    assert row[5:9] == [2, 2, 0, 1]
