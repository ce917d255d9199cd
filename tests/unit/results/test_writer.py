"""The host's writer of a cell: it stores only valid, planned, first records, under a lock."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from portbench.errors import ResultsError, UsageError
from portbench.plan import plan_from_case_files
from portbench.results import CellWriter, read_results, read_sessions
from portbench.results.safeio import dumps_strict, loads_strict
from portbench_runner.contract import Plan

from .records import case_record

CASES = """
from portbench_runner.api import case

@case("a")
@case("b")
def run(ctx):
    ctx.measure(len, "x")
"""


def _plan(tmp_path: Path) -> Plan:
    return plan_from_case_files(tmp_path / "src", {"demo": CASES})


def _line(message: dict) -> bytes:
    return (dumps_strict(message) + "\n").encode()


def test_only_valid_planned_first_records_are_stored(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    cell = tmp_path / "cell"
    cell.mkdir()
    foreign = case_record(plan, "a", cell="torch/cpu/paper")
    unplanned = case_record(plan, "a", case="demo.other::zzz")
    with CellWriter(cell, plan) as writer:
        stream = b"".join(
            [
                _line({"type": "record", "record": case_record(plan, "a")}),
                _line({"type": "record", "record": case_record(plan, "a", outcome="fail")}),
                _line({"type": "record", "record": foreign}),
                _line({"type": "record", "record": unplanned}),
                _line({"type": "record", "record": case_record(plan, "b", outcome="bogus")}),
                b"not json at all\n",
                b"x" * (2 << 20) + b"\n",
            ]
        )
        # Bytes arrive in arbitrary pieces, as from a pipe.
        for start in range(0, len(stream), 4093):
            writer.feed(stream[start : start + 4093])
        session = writer.finish(0)
    read = read_results(cell / "results.jsonl")
    assert [(r.case_name, r.outcome.value) for r in read.records] == [("a", "pass")]
    assert read.skipped == 0
    assert session.rejected_lines == 6
    assert session.status == "aborted"  # no session line came from the supervisor
    (line,), bad = read_sessions(cell / "sessions.jsonl")
    assert (line.status, bad) == ("aborted", 0)


def test_a_second_writer_on_the_same_cell_is_refused(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    cell = tmp_path / "cell"
    cell.mkdir()
    with CellWriter(cell, plan), pytest.raises(UsageError, match="is writing"):
        CellWriter(cell, plan).__enter__()
    with CellWriter(cell, plan):  # released with its holder
        pass


def test_links_in_the_cell_are_refused_not_followed(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    cell = tmp_path / "cell"
    cell.mkdir()
    target = tmp_path / "elsewhere"
    target.write_text("keep\n")
    (cell / "results.jsonl").symlink_to(target)
    with pytest.raises(ResultsError, match="symbolic link"):
        CellWriter(cell, plan).__enter__()
    assert target.read_text() == "keep\n"


def test_non_finite_numbers_are_strict_json_and_read_back(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    cell = tmp_path / "cell"
    cell.mkdir()
    timing = {"cold_ms": math.inf, "warm": None}
    with CellWriter(cell, plan) as writer:
        writer.feed(_line({"type": "record", "record": case_record(plan, "a", timing=timing)}))
        writer.finish(0)
    text = (cell / "results.jsonl").read_text()
    assert loads_strict(text)["timing"]["cold_ms"] == "Infinity"
    (record,) = read_results(cell / "results.jsonl").records
    assert record.timing is not None and math.isinf(record.timing.cold_ms)
    with pytest.raises(ValueError):
        loads_strict(json.dumps({"x": math.nan}))


def test_schema_2_timing_fields_are_read(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    cell = tmp_path / "cell"
    cell.mkdir()
    warm = {
        "median_ms": 1.0, "q1_ms": 0.9, "q3_ms": 1.1, "iqr_ms": 0.2, "min_ms": 0.8,
        "mean_ms": 1.0, "samples": 3, "calls_per_sample": 1, "noisy": False,
        "ci95_rel": 0.015, "stopped_by": "converged", "samples_ms": [0.9, 1.0, 1.1],
    }  # fmt: skip
    timing = {"cold_ms": 5.0, "warm": warm, "warm_s": 0.25}
    with CellWriter(cell, plan) as writer:
        writer.feed(_line({"type": "record", "record": case_record(plan, "a", timing=timing)}))
        writer.finish(0)
    (record,) = read_results(cell / "results.jsonl").records
    assert record.timing is not None and record.timing.warm is not None
    assert record.timing.warm_s == 0.25
    assert record.timing.warm.stopped_by == "converged"
    assert record.timing.warm.samples_ms == (0.9, 1.0, 1.1)
