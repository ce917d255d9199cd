"""Census tables and heat map from small in-memory cells."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

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
from portbench_runner.contract import (
    CaseResult,
    Category,
    CensusEntry,
    CensusResult,
    CensusSettings,
    ErrorInfo,
    Outcome,
    Plan,
    PlanAccelerator,
    PlanCase,
    PlanFunction,
    RecordFactory,
    SessionLine,
    SessionStatus,
    Stage,
    WorkerInfo,
)


def _cell(
    name: str,
    flavor: str,
    outcomes: dict[str, tuple[str, int]],
    row: str | None = None,
    message: str = "no kernel",
    declared: dict[str, tuple[str, ...]] | None = None,
) -> Cell:
    """A census cell of one operator 'add' (or harnesses of one primitive, ``row``) whose
    cases ``census:add.<n>::<dtype>`` have the given (outcome, samples that agreed of 2)."""
    functions = []
    for case_id in outcomes:
        function, dtype = case_id.split("::")
        entry = CensusEntry(
            "op_db", "2.13.0", len(functions), "add", "",
            declared or {"cpu": ("float32",), "cuda": ("float32",)}, row=row,
        )  # fmt: skip
        case = PlanCase(case_id, dtype, 1, dtype=dtype)
        functions.append(PlanFunction(function, "census:op_db", (case,), census=entry))
    plan = Plan(
        cell=f"torch/{name}/host",
        framework="torch",
        profile="host",
        backend="host",
        accelerator=PlanAccelerator(name, flavor),
        manifest_root="",
        functions=tuple(functions),
        rerun_prefix="portbench census",
        census=CensusSettings("torch", "op_db", "2.13.0", 3, "0" * 64, ("float32", "int8")),
    )
    factory = RecordFactory(plan)
    records = []
    for case_id, (outcome, agreed) in outcomes.items():
        dtype = case_id.split("::")[1]
        failed = outcome == "fail"
        result = CaseResult(
            Outcome(outcome),
            Stage.CALL if failed else None,
            Category.TYPE if failed else None,
            error=ErrorInfo("E", message) if failed else None,
            census=CensusResult(dtype, dtype == "float32", samples=2, agreed=agreed, unchecked=0),
        )
        records.append(factory.record(case_id, result, WorkerInfo(1, 0), duration_s=0.5))
    session = SessionLine(plan.cell, SessionStatus.COMPLETE, None)
    return Cell(
        Path(f"census-torch-{name}-host"),
        plan.cell,
        "torch",
        name,
        "host",
        plan,
        None,
        (session,),
        tuple(records),
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


def test_a_device_cell_reads_the_dtypes_declared_for_its_device_type() -> None:
    outcomes = {"census:add::float32": ("pass", 2), "census:add::int8": ("pass", 2)}
    torch_like = {"cpu": ("float32", "int8"), "cuda": ("float32", "int8"), "rocm": ("float32",)}

    def declared(flavor: str, table: dict[str, tuple[str, ...]]) -> dict[str, bool | None]:
        cell = _cell(flavor, flavor, outcomes, declared=table)
        return {c.dtype: c.declared for c in census_cases(cell)}

    # ROCm: torch's own rocm entry where the database has one, else CUDA's (TensorFlow's GPU).
    assert declared("rocm", torch_like) == {"float32": True, "int8": False}
    assert declared("rocm", {"cpu": ("float32",), "cuda": ("int8",)}) == {
        "float32": False,
        "int8": True,
    }
    assert declared("mps", {**torch_like, "mps": ("int8",)}) == {"float32": False, "int8": True}
    # A database that declares nothing for the device says nothing: unknown, not undeclared.
    assert declared("xpu", torch_like) == {"float32": None, "int8": None}


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
    headline, detail, apart = census_differences([cpu, gpu])
    assert apart.rows == []  # both devices' databases list the same operators
    assert detail.headers == [
        "operator",
        "dtype",
        "cpu/host (2.13.0)",
        "gpu/host (2.13.0)",
        "first error",
    ]
    assert detail.rows == [["add", "float32", "yes", "no", "gpu/host (2.13.0): type: no kernel"]]
    assert headline.rows[0][0] == "torch"
    assert headline.rows[0][2:] == [1, 1, 1, 0, 1, 0, 0]
    assert [t.name for t in census_tables([cpu, gpu])][:3] == [
        "census-summary",
        "census-differences",
        "census-differences-torch",
    ]
    page = write_census_html([cpu, gpu], tmp_path)
    assert page is not None
    text = page.read_text()
    assert "torch/gpu/host" in text and "#d0433a" in text  # a red square for 'no'


def _versioned(cell: Cell, version: str, profile: str) -> Cell:
    assert isinstance(cell.plan, Plan) and cell.plan.census is not None
    census = replace(cell.plan.census, version=version)
    plan = replace(cell.plan, census=census, cell=f"torch/cpu/{profile}")
    return replace(cell, cell_id=plan.cell, profile=profile, plan=plan)


def test_differences_between_versions_read_oldest_first_with_pairs_one_side_lacks() -> None:
    # Listed newest first: the table still puts 1.12.0 before 2.13.0 (numerically, not
    # as text: "10" sorts after "9").
    new = _versioned(
        _cell(
            "cpu",
            "cpu",
            {
                "census:add::float32": ("pass", 2),
                "census:add::int8": ("fail", 0),
                "census:mul::int8": ("pass", 2),
                "census:sub::int8": ("skip", 0),
            },
        ),
        "2.13.0+cpu",
        "current",
    )
    old = _versioned(
        _cell(
            "cpu",
            "cpu",
            {
                "census:add::float32": ("fail", 0),
                "census:add::int8": ("fail", 1),
                "census:sub::int8": ("pass", 2),
            },
        ),
        "1.12.0",
        "paper",
    )
    nine = _versioned(_cell("cpu", "cpu", {"census:add::float32": ("pass", 2)}), "1.9.0", "v9")
    headline, detail, apart = census_differences([new, old, nine])
    assert detail.headers[2:5] == [
        "cpu/v9 (1.9.0)",
        "cpu/paper (1.12.0)",
        "cpu/current (2.13.0+cpu)",
    ]
    rows = {(row[0], row[1]): row[2:] for row in detail.rows}
    # add float32: yes, no, yes; add int8: (none), partly, no; sub int8: no-sample is not a
    # support, so yes beside no-sample is no difference; mul int8 is in one cell only.
    assert rows[("add", "float32")][:3] == ["yes", "no", "yes"]
    assert rows[("add", "float32")][3] == "cpu/paper (1.12.0): type: no kernel"
    assert rows[("add", "int8")][:3] == ["-", "partly", "no"]
    # Why it fails where it works least (now), not why one sample failed before.
    assert rows[("add", "int8")][3].startswith("cpu/current (2.13.0+cpu): ")
    assert set(rows) == {("add", "float32"), ("add", "int8")}
    # pairs, in every cell, differing, better in last, worse in last, only in first, last
    assert headline.rows[0][2:] == [4, 1, 2, 0, 0, 0, 1]
    # Operators the oldest database lacks: mul (only 2.13) and sub (1.12 and 2.13).
    assert apart.rows == [
        [
            "mul",
            "cpu/current (2.13.0+cpu)",
            "cpu/v9 (1.9.0); cpu/paper (1.12.0)",
            "int8",
            "cpu/current (2.13.0+cpu): 1 yes",
            "",
        ],
        [
            "sub",
            "cpu/paper (1.12.0); cpu/current (2.13.0+cpu)",
            "cpu/v9 (1.9.0)",
            "int8",
            "cpu/paper (1.12.0): 1 yes; cpu/current (2.13.0+cpu): 1 no-sample",
            "",
        ],
    ]


def test_a_comparison_failure_says_by_how_much_in_one_line() -> None:
    message = (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (1,)\nGreatest relative difference: 1.0"
    )
    cell = _cell("cpu", "cpu", {"census:add::float32": ("fail", 1)}, message=message)
    (case,) = census_cases(cell)
    assert case.message == (
        "Tensor-likes are not close!; Mismatched elements: 1 / 3 (33.3%); "
        "Greatest absolute difference: 0.5 at index (1,)"
    )


def test_an_entry_made_public_is_named_beside_its_old_name() -> None:
    old = _versioned(
        _cell("cpu", "cpu", {"census:_masked.amax::float32": ("pass", 2)}), "1.12.0", "paper"
    )
    new = _versioned(
        _cell("cpu", "cpu", {"census:masked.amax::float32": ("pass", 2)}), "2.13.0", "current"
    )
    _, _, apart = census_differences([new, old])
    renamed = {row[0]: row[-1] for row in apart.rows}
    assert renamed == {"_masked.amax": "masked.amax", "masked.amax": "_masked.amax"}
