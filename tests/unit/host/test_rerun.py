"""rerun: an earlier cell's exact plan, run here as a new run that names its origin."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from portbench.errors import UsageError
from portbench.plan import PlanOptions, plan_from_case_files, read_plan, write_plan
from portbench.rerun import rerun_cell
from portbench.results import read_results
from portbench_runner.contract import Plan

CASES = """
from portbench_runner.api import case

@case("one")
def one(ctx):
    return ctx.seed

@case("two")
def two(ctx):
    return 2
"""


def _origin(tmp_path: Path) -> tuple[Path, Plan]:
    work = tmp_path / "work"
    plan = plan_from_case_files(
        work, {"ops": CASES}, options=PlanOptions(seed=7, timing={"max_samples": 20})
    )
    # As a manifest plan does: the case file's hash, checked by a rerun.
    function = plan.functions[0]
    digest = hashlib.sha256((work / function.case_file).read_bytes()).hexdigest()
    plan = replace(plan, functions=(replace(function, case_file_sha256=digest),))
    cell = tmp_path / "runs" / "first" / "python-cpu-host"
    cell.mkdir(parents=True)
    write_plan(plan, cell / "plan.json")
    return cell, plan


def test_a_rerun_runs_the_same_cases_and_seeds_and_names_its_origin(tmp_path: Path) -> None:
    origin, plan = _origin(tmp_path)
    result = rerun_cell(origin.parent, Console(file=None, quiet=True), run_dir=tmp_path / "again")
    new_plan = read_plan(result.cell_dir / "plan.json")
    assert new_plan.origin is not None and new_plan.origin.cell == plan.cell
    assert (
        new_plan.origin.plan_sha256
        == hashlib.sha256((origin / "plan.json").read_bytes()).hexdigest()
    )
    assert new_plan.functions == plan.functions
    assert new_plan.timing == plan.timing and new_plan.seed == plan.seed
    records = read_results(result.cell_dir / "results.jsonl").records
    assert sorted(r.case for r in records) == ["demo.ops::one", "demo.ops::two"]
    assert {r.case: r.seed for r in records} == {c.id: c.seed for c in plan.functions[0].cases}


def test_a_changed_case_file_another_flavor_or_an_ambiguous_run_is_refused(
    tmp_path: Path,
) -> None:
    origin, plan = _origin(tmp_path)
    quiet = Console(file=None, quiet=True)
    with pytest.raises(UsageError, match="flavor"):
        rerun_cell(origin, quiet, accelerator="gpu-t4", run_dir=tmp_path / "x")
    second = origin.parent / "python-cpu-other"
    second.mkdir()
    write_plan(plan, second / "plan.json")
    with pytest.raises(UsageError, match="holds 2 cells"):
        rerun_cell(origin.parent, quiet, run_dir=tmp_path / "x")
    case_file = tmp_path / "work" / plan.functions[0].case_file
    case_file.write_text(case_file.read_text() + "\n# edited\n")
    with pytest.raises(UsageError, match=r"is not the case file the plan of .* was compiled with"):
        rerun_cell(origin, quiet, run_dir=tmp_path / "x")
    assert not (tmp_path / "x").exists()
    with pytest.raises(UsageError, match="does not exist"):
        rerun_cell(tmp_path / "nowhere", quiet)
