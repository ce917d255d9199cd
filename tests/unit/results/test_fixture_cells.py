"""Every earlier schema stays readable: small cells made by earlier portbench versions
(tests/data/cells, README there) read through every reader of the host."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from rich.console import Console

from portbench.cluster.archive import pack_cell
from portbench.cluster.landing import land_cell
from portbench.commands.validate import rule_usage
from portbench.compare import Thresholds, compare_cells, load_side
from portbench.errors import PlanError, UsageError
from portbench.outcomes import function_outcomes
from portbench.plan import read_any_plan, read_plan
from portbench.report.census import census_cases, census_tables
from portbench.report.commands import build_report
from portbench.report.load import load_cell
from portbench.report.tables import curation, failures, portability, provenance
from portbench.results import (
    CaseRecord,
    CellWriter,
    StudyRecord,
    read_env,
    read_results,
    read_sessions,
)
from portbench_runner.contract import (
    CaseResult,
    Outcome,
    Plan,
    RecordFactory,
    StudyPlan,
    WorkerInfo,
)

CELLS = ROOT / "tests" / "data" / "cells"
#: (folder, plan schema, record schema, cases, complete)
RUN_CELLS = [
    ("record2-plan2/python-cpu-host", 2, 2, 5, True),
    ("record3-plan3/python-cpu-host", 3, 3, 5, True),
    ("record4-plan4/python-cpu-host", 4, 4, 5, True),
    ("census3/census-python-cpu-host", 3, 3, 8, True),
    ("killed3/python-cpu-host", 3, 3, 4, False),
]
STUDY_CELLS = ["study-importer2/jax-gpu-t4-study", "study/jax-gpu-t4-study"]


def _lines(cell: Path) -> list[dict[str, object]]:
    text = (cell / "results.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize(("name", "plan_schema", "record_schema", "cases", "complete"), RUN_CELLS)
def test_a_cell_of_an_earlier_schema_reads_through_every_reader(
    tmp_path: Path, name: str, plan_schema: int, record_schema: int, cases: int, complete: bool
) -> None:
    cell = CELLS / name
    plan = read_plan(cell / "plan.json")
    assert plan.schema == plan_schema and plan.case_count == cases
    # Records: each line reads, and writes back as it was written.
    read = read_results(cell / "results.jsonl")
    assert read.skipped == 0
    for line in _lines(cell):
        record = CaseRecord.from_json(line)
        assert record.to_json() == line
        assert record.schema in (record_schema, 2)  # a host record before schema 4 said 2
    sessions, bad = read_sessions(cell / "sessions.jsonl")
    assert bad == 0 and sessions[-1].complete is complete
    env = read_env(cell / "env.json")
    assert env is not None and env.python_version and env.cell == plan.cell
    # The report's reading and tables.
    loaded = load_cell(cell)
    assert loaded.status == ("complete" if complete else "incomplete")
    assert isinstance(loaded.plan, Plan) and len(loaded.records) == len(read.records)
    assert set(function_outcomes(plan, read.records).values()) <= {
        "pass",
        "partial",
        "complete",
        "untested",
    }
    for table in (portability, failures, provenance):
        assert table([loaded]).rows
    # The bench cells hold an erroring case: listed for curation.
    assert bool(curation([loaded]).rows) is name.startswith("record")
    # compare: a cell against itself changes nothing.
    (side,) = load_side(cell)
    compared = compare_cells(side, side, Thresholds())
    assert compared.cases and all(c.change == "same" for c in compared.cases)
    # validate's rule usage, and a resumed cell's view of what is left to run.
    rule_usage(list(plan.rules), list(read.records))
    copy = tmp_path / "copy" / cell.name
    shutil.copytree(cell, copy)
    with CellWriter(copy, plan) as writer:
        left = writer.todo
    assert left == ([] if complete else ["demo.slow::c3", "demo.slow::c4"])
    # A node's archive of the cell lands whole.
    run = tmp_path / "run"
    run.mkdir()
    landed = land_cell(run, plan.cell, pack_cell(copy), {"name": "n1", "attempt": "ab"})
    assert landed.recorded == len(read.recorded) and landed.planned == cases


def test_a_census_cell_of_schema_3_is_read_by_the_census_tables() -> None:
    cell = load_cell(CELLS / "census3" / "census-python-cpu-host")
    assert cell.census is not None and cell.census.database.endswith("python_db")
    supports = {(c.operator, c.dtype): c.support for c in census_cases(cell)}
    assert supports[("add", "bool")] == "yes"
    assert supports[("engine.segfault", "bool")] == "no"
    assert {t.name for t in census_tables([cell])} >= {"census-summary"}


def test_a_host_record_of_a_dead_supervisor_before_schema_4_is_superseded(
    tmp_path: Path,
) -> None:
    cell = tmp_path / "cell"
    shutil.copytree(CELLS / "killed3" / "python-cpu-host", cell)
    plan = read_plan(cell / "plan.json")
    before = read_results(cell / "results.jsonl")
    legacy = next(r for r in before.records if r.case == "demo.slow::c3")
    assert legacy.schema == 2 and legacy.for_dead_supervisor
    assert before.recorded == {"demo.slow::c1", "demo.slow::c2"}
    # The resumed session's record of c3 (as its supervisor would send it) supersedes it.
    rerun = RecordFactory(plan).record("demo.slow::c3", CaseResult(Outcome.PASS), WorkerInfo(7, 0))
    with CellWriter(cell, plan) as writer:
        writer.store_host_record(rerun)
        ended = writer.finish(0)
    assert ended.superseded == 1
    after = read_results(cell / "results.jsonl")
    assert after.superseded == 1 and after.skipped == 0
    assert [(r.case, r.outcome.value) for r in after.records] == [
        ("demo.slow::c1", "pass"),
        ("demo.slow::c2", "pass"),
        ("demo.slow::c3", "pass"),
    ]
    assert len(_lines(cell)) == 4  # the superseded line stays, for audit


@pytest.mark.parametrize("name", STUDY_CELLS)
def test_a_study_cell_reads_as_a_kind_of_its_own(name: str) -> None:
    cell = CELLS / name
    plan = read_any_plan(cell / "plan.json")
    assert isinstance(plan, StudyPlan) and plan.functions
    with pytest.raises(PlanError, match="plan of a study cell"):
        read_plan(cell / "plan.json")
    for line in _lines(cell):
        assert StudyRecord.from_json(line).to_json() == line
    loaded = load_cell(cell)
    assert loaded.is_study and loaded.status == "complete"
    assert all(isinstance(r, StudyRecord) for r in loaded.records)
    assert portability([loaded]).rows and failures([loaded]).rows
    with pytest.raises(UsageError, match="is a study cell") as caught:
        load_side(cell)
    assert "compare pairs cells portbench ran" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_report_builds_from_every_fixture_cell_together(tmp_path: Path) -> None:
    quiet = Console(file=None, quiet=True)
    written = build_report([CELLS], tmp_path / "report", quiet, with_study=False)
    assert tmp_path / "report" / "index.html" in written
    assert (tmp_path / "report" / "census.html").exists()
