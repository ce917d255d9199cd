"""A real census cell per framework (a few operators, host backend): the database listed in
the cell, the records saying where their inputs came from, declared beside observed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import read_jsonl, validate

#: (framework, module the database needs, --ops, a case that must pass, its check)
CENSUSES = [
    ("torch", "expecttest", ["add", "nn.functional.relu"], "census:add::float32", "reference"),
    ("jax", "absl", ["sin"], None, "none"),
    ("tensorflow", "tensorflow", ["Abs", "MatMul"], "census:Abs::float32", "none"),
]


@pytest.mark.parametrize(("framework", "needs", "ops", "passing", "check"), CENSUSES)
def test_a_census_cell_runs_its_database(
    framework: str, needs: str, ops: list[str], passing: str | None, check: str, tmp_path: Path
) -> None:
    pytest.importorskip(framework)
    pytest.importorskip(needs)
    command = [sys.executable, "-m", "portbench.cli", "census", "--framework", framework]
    command += ["--accelerator", "cpu", "--profile", "host", "--no-timing"]
    command += ["--run-dir", str(tmp_path), "--ops", *ops]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (cell,) = tmp_path.glob("census-*")
    records = read_jsonl(cell / "results.jsonl")
    assert records and (cell / "census-listing.json").exists()
    for record in records:
        validate(record, "record")
        assert record["source"]["op"] in ops
    by_case = {r["case"]: r for r in records}
    example = by_case[passing] if passing else next(r for r in records if r["outcome"] == "pass")
    assert example["outcome"] == "pass"
    assert example["census"]["check"] == check
    assert example["census"]["declared"] is True
