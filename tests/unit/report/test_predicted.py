"""The predicted cells' tables and their check against the study, on small made cells."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from portbench.report.load import Cell
from portbench.report.predicted import is_predicted, predicted_outcomes, predicted_summary
from portbench.report.prediction_check import confusion, prediction_checks


def _plan(functions: dict[str, list[str]], **extra: Any) -> dict[str, Any]:
    return {
        "functions": [
            {
                "function": f,
                "study_test_file": f"{f}_test.py",
                "cases": [{"id": f"{f}::{c}"} for c in cases],
            }
            for f, cases in functions.items()
        ],
        **extra,
    }


def _record(function: str, case: str, outcome: str, verdict: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "function": function,
        "study_test_file": f"{function}_test.py",
        "case": f"{function}::{case}",
        "outcome": outcome,
        "category": "not_implemented" if outcome == "fail" else None,
        "stage": "call" if outcome == "fail" else None,
    }
    if verdict is not None:
        record["evidence_kind"] = "predicted"
        record["prediction"] = {"method": "lowered", "verdict": verdict, "target": "gpu-t4"}
    return record


FUNCTIONS = {"f.eig": ["a", "b"], "f.add": ["a"], "f.sort": ["a"], "f.save": ["a"]}


def _predicted() -> Cell:
    records = [
        _record("f.eig", "a", "fail", "fail"),
        _record("f.eig", "b", "pass", "pass"),
        _record("f.add", "a", "fail", "fail"),  # a false alarm
        _record("f.sort", "a", "pass", "pass"),  # a miss: the study failed it
        _record("f.save", "a", "skip", "not_predictable"),
    ]
    plan = _plan(FUNCTIONS, predict={"target": "gpu-t4", "platform": "cuda", "method": "lowered"})
    return Cell(
        Path("p"), "jax/gpu-t4-predicted/x", "jax", "gpu-t4-predicted", "x", plan, {}, [], records
    )


def _study() -> Cell:
    records = [
        _record("f.eig", "a", "fail"),
        _record("f.add", "a", "pass"),
        _record("f.sort", "a", "fail"),
        _record("f.save", "a", "pass"),
    ]
    env = {"study": {"report": "t4_vm/gpu/report.json"}}
    return Cell(
        Path("s"), "jax/gpu-t4/study", "jax", "gpu-t4", "study", _plan(FUNCTIONS), env, [], records
    )


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
    passing = [{**r, "outcome": "pass", "category": None, "stage": None} for r in study.records]
    clean = Cell(
        study.path, study.cell_id, "jax", "gpu-t4", "study", study.plan, study.env, [], passing
    )
    (row,), _ = (t.rows for t in prediction_checks([_predicted()], [clean]))
    assert row[9] == "n/a"


def test_a_crash_in_a_predicted_cell_is_not_a_predicted_failure() -> None:
    cell = _predicted()
    crashed = [*cell.records[:4], {**_record("f.save", "a", "fail"), "category": "crash"}]
    cell = Cell(cell.path, cell.cell_id, "jax", cell.accelerator, "x", cell.plan, {}, [], crashed)
    assert predicted_outcomes(cell)[("f.save", "f.save_test.py")] == "untested"
    assert is_predicted(cell)
    (row,) = predicted_summary([cell]).rows
    assert row[5:9] == [2, 2, 0, 1]
