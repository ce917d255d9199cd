"""The record the host writes for a census case whose supervisor died: it names the database
entry the case stands for (``source``), as the supervisor's own records do."""

from __future__ import annotations

from pathlib import Path

from portbench.census.plan import CensusOptions, compile_census_plan
from portbench.results import CellWriter, read_results
from portbench.session import _host_crash_record

from .test_listing_plan import LISTING, _cell, _parse


def test_a_dead_supervisors_census_record_carries_its_entrys_source(tmp_path: Path) -> None:
    plan = compile_census_plan(_cell(), _parse(LISTING), [], CensusOptions(), "0" * 64)
    case_id = "census:max.reduction_with_dim::bool"
    record = _host_crash_record(plan, case_id, -9)
    assert record is not None
    with CellWriter(tmp_path, plan) as writer:
        writer.store_host_record(record)
        writer.finish(-9, "the supervisor died")
    (read,) = read_results(tmp_path / "results.jsonl").records
    assert read.case == case_id
    assert read.category is not None and read.category.value == "crash"
    assert read.source == {
        "database": "op_db",
        "version": "2.13.0",
        "entry": 1,
        "op": "max",
        "variant": "reduction_with_dim",
    }


def test_a_dead_supervisors_bench_record_has_no_source(tmp_path: Path) -> None:
    from portbench.plan import plan_from_case_files

    cases = (
        "from portbench_runner.api import case\n\n"
        '@case("a")\ndef run(ctx):\n    ctx.measure(len, "x")\n'
    )
    plan = plan_from_case_files(tmp_path / "src", {"demo": cases})
    case_id = plan["functions"][0]["cases"][0]["id"]
    record = _host_crash_record(plan, case_id, -9)
    assert record is not None and "source" not in record and record["schema"] == 2
