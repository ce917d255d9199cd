"""Census tables and heat map from small in-memory cells."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from portbench.report.census import (
    census_cases,
    census_differences,
    census_findings,
    census_summary_table,
    census_support,
    census_tables,
)
from portbench.report.census_html import write_census_html
from portbench.report.load import Cell


def _cell(
    name: str, flavor: str, outcomes: dict[str, tuple[str, int]], row: str | None = None
) -> Cell:
    """A census cell of one operator 'add' (or harnesses of one primitive, ``row``) whose
    cases ``census:add.<n>::<dtype>`` have the given (outcome, samples that agreed of 2)."""
    functions: list[dict[str, Any]] = []
    records = []
    for case_id, (outcome, agreed) in outcomes.items():
        function, dtype = case_id.split("::")
        functions.append(
            {
                "function": function,
                "census": {"declared": {"cpu": ["float32"], "cuda": ["float32"]}, "row": row},
                "cases": [{"id": case_id, "name": dtype, "dtype": dtype}],
            }
        )
        records.append(
            {
                "case": case_id,
                "outcome": outcome,
                "category": "type" if outcome == "fail" else None,
                "census": {"samples": 2, "agreed": agreed, "unchecked": 0},
                "error": {"message": "no kernel"} if outcome == "fail" else None,
                "duration_s": 0.5,
            }
        )
    plan = {
        "cell": f"torch/{name}/host",
        "accelerator": {"flavor": flavor},
        "census": {"database": "op_db", "version": "2.13.0", "dtypes": ["float32", "int8"]},
        "functions": functions,
    }
    sessions = [{"status": "complete"}]
    return Cell(
        Path(f"census-torch-{name}-host"),
        plan["cell"],
        "torch",
        name,
        "host",
        plan,
        None,
        sessions,
        records,
    )


def test_support_findings_and_summary() -> None:
    cell = _cell(
        "cpu",
        "cpu",
        {"census:add::float32": ("fail", 0), "census:add::int8": ("pass", 2)},
    )
    supports = {(c.operator, c.dtype): (c.support, c.declared) for c in census_cases(cell)}
    assert supports == {("add", "float32"): ("no", True), ("add", "int8"): ("yes", False)}
    findings = census_findings(cell).rows
    assert [row[0] for row in findings] == ["declared, not working", "working, undeclared"]
    assert census_support(cell).rows == [["add", "no", "yes*"]]
    summary = census_summary_table([cell]).rows[0]
    assert summary[3:8] == [1, 0, 1, 0, 2]  # one operator, some yes; two pairs
    assert summary[-3:] == [1, 1, "1"]


def test_harnesses_of_one_primitive_and_dtype_merge_into_partly() -> None:
    cell = _cell(
        "cpu",
        "cpu",
        {"census:add.a::float32": ("pass", 2), "census:add.b::float32": ("fail", 0)},
        row="add",
    )
    (case,) = census_cases(cell)
    assert (case.operator, case.support, case.samples, case.ok) == ("add", "partly", 4, 2)
    assert case.message == "no kernel"


def test_differences_between_devices_and_the_heat_map(tmp_path: Path) -> None:
    cpu = _cell("cpu", "cpu", {"census:add::float32": ("pass", 2)})
    gpu = _cell("gpu", "cuda", {"census:add::float32": ("fail", 0)})
    rows = census_differences([cpu, gpu]).rows
    assert rows == [["torch", "add", "float32", "torch/cpu/host: yes; torch/gpu/host: no"]]
    assert [t.name for t in census_tables([cpu, gpu])][:2] == [
        "census-summary",
        "census-differences",
    ]
    page = write_census_html([cpu, gpu], tmp_path)
    assert page is not None
    text = page.read_text()
    assert "torch/gpu/host" in text and "#d0433a" in text  # a red square for 'no'
