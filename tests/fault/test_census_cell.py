"""A real census cell over the framework-free database (``python_db``): listed inside the
runner, validated and compiled by the host, run by real workers. Operators that kill their
worker, hang or exit cost one case each; the report sees declared beside observed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import read_jsonl, run_supervisor, runner_env, validate

from portbench.accelerators import get_accelerator
from portbench.census.listing import read_listing
from portbench.census.plan import CensusOptions, compile_census_plan
from portbench.plan import CellSpec, PlanOptions
from portbench.report.census import census_cases, census_findings, census_summary_table
from portbench.report.load import load_cell

DTYPES = ("bool", "float64", "complex128")
RUNNER = [sys.executable, "-m", "portbench_runner"]


def _listing(tmp_path: Path) -> Path:
    out = tmp_path / "listing.json"
    done = subprocess.run(
        [*RUNNER, "census-list", "--framework", "python", "--out", str(out)],
        env=runner_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


def _census_plan(tmp_path: Path) -> Path:
    listing = read_listing(_listing(tmp_path), "python")
    cell = CellSpec("python", get_accelerator("cpu"), "host", "host")
    options = CensusOptions(
        dtypes=DTYPES,
        timing=False,
        plan=PlanOptions(case_timeout_s=2.0, worker_start_s=60.0, grace_s=1.0, max_restarts=20),
    )
    plan = compile_census_plan(cell, listing, [], options, "0" * 64)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan.to_json()))
    return path


def test_a_census_cell_survives_its_operators_and_says_where_inputs_came_from(
    tmp_path: Path,
) -> None:
    cell_dir = tmp_path / "census-python-cpu-host"
    done = run_supervisor(_census_plan(tmp_path), cell_dir)
    assert done.returncode == 0, done.stderr
    records = {r["case"]: r for r in read_jsonl(cell_dir / "results.jsonl")}
    assert len(records) == 7 * len(DTYPES)  # every planned case, each once
    for record in records.values():
        validate(record, "record")
        assert record["schema"] == 4
        assert record["source"]["database"] == "portbench_runner.census.python_db"
    # Each misbehaving operator costs its own cases, and the cases after it still run.
    for dtype in DTYPES:
        assert records[f"census:engine.segfault::{dtype}"]["category"] == "crash"
        assert records[f"census:engine.exit::{dtype}"]["category"] == "crash"
        assert records[f"census:engine.hang::{dtype}"]["category"] == "timeout"
    add_bool = records["census:add::bool"]
    assert add_bool["outcome"] == "pass"
    assert add_bool["census"]["declared"] is False
    assert add_bool["census"]["agreed"] == 3
    assert records["census:add::float64"]["census"]["check"] == "reference"
    floordiv = records["census:floordiv::complex128"]
    assert (floordiv["outcome"], floordiv["stage"]) == ("fail", "call")
    assert floordiv["census"]["ran"] == 0
    wrong = records["census:sub.wrong_reference::float64"]
    assert (wrong["stage"], wrong["category"]) == ("check", "precision")
    assert wrong["rerun"].endswith("--case census:sub.wrong_reference::float64")

    cell = load_cell(cell_dir)
    supports = {(c.operator, c.dtype): c.support for c in census_cases(cell)}
    assert supports[("add", "bool")] == "yes"
    assert supports[("floordiv", "complex128")] == "no"
    findings = {(row[0], row[1], row[2]) for row in census_findings(cell).rows}
    assert ("working, undeclared", "add", "bool") in findings
    assert ("declared, not working", "floordiv", "complex128") in findings
    summary = census_summary_table([cell]).rows[0]
    assert summary[3] == 7  # operators
    assert summary[7] == 7 * len(DTYPES)  # operator x dtype pairs
