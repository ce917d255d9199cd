"""The record the host writes for a census case whose supervisor died: it names the database
entry the case stands for (``source``), as the supervisor's own records do."""

from __future__ import annotations

from pathlib import Path

from portbench.census.plan import CensusOptions, compile_census_plan
from portbench.results import CellWriter, read_results
from portbench_runner.contract import CensusSource, Start, encode

from .test_listing_plan import LISTING, _cell, _parse


def _dead_supervisor_record(tmp_path: Path, plan, case_id: str):  # type: ignore[no-untyped-def]
    """What the host records when the supervisor dies while ``case_id`` runs."""
    with CellWriter(tmp_path, plan) as writer:
        writer.feed(encode(Start(case_id)))
        assert writer.record_dead_supervisor(-9) == case_id
        writer.finish(-9, "the supervisor died")
    (read,) = read_results(tmp_path / "results.jsonl").records
    return read


def test_a_dead_supervisors_census_record_carries_its_entrys_source(tmp_path: Path) -> None:
    plan = compile_census_plan(_cell(), _parse(LISTING), [], CensusOptions(), "0" * 64)
    case_id = "census:max.reduction_with_dim::bool"
    read = _dead_supervisor_record(tmp_path, plan, case_id)
    assert read.case == case_id
    assert read.category is not None and read.category.value == "crash"
    assert read.for_dead_supervisor
    assert read.source == CensusSource("op_db", "2.13.0", 1, "max", "reduction_with_dim")


def test_a_dead_supervisors_bench_record_has_no_source(tmp_path: Path) -> None:
    from portbench.plan import plan_from_case_files

    cases = (
        "from portbench_runner.api import case\n\n"
        '@case("a")\ndef run(ctx):\n    ctx.measure(len, "x")\n'
    )
    plan = plan_from_case_files(tmp_path / "src", {"demo": cases})
    cell = tmp_path / "cell"
    cell.mkdir()
    read = _dead_supervisor_record(cell, plan, plan.case_ids[0])
    assert read.source is None and read.schema == 4 and read.worker.pid is None
    assert "source" not in read.to_json()
