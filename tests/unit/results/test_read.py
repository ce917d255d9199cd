"""read_results over damaged files: every bad line skipped and counted, never a traceback;
a newer schema or a planted link refused with one sentence."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import make_plan, run_supervisor, runner_env

from portbench.errors import ResultsError
from portbench.plan import plan_from_case_files
from portbench.results import Outcome, read_results
from portbench.results.model import RECORD_SCHEMAS
from portbench.results.read import MAX_LINE_BYTES
from portbench.results.safeio import dumps_strict
from portbench_runner.contract import Plan

from .records import case_record

CASES = """
from portbench_runner.api import case

@case("a")
@case("b")
@case("c")
def run(ctx):
    ctx.measure(len, "x")
"""


@pytest.fixture
def plan(tmp_path: Path) -> Plan:
    return plan_from_case_files(tmp_path / "src", {"demo": CASES})


def _write(path: Path, *lines: str | bytes) -> Path:
    data = b"".join(line if isinstance(line, bytes) else line.encode() for line in lines)
    path.write_bytes(data)
    return path


def _line(record: dict[str, Any]) -> str:
    return dumps_strict(record) + "\n"


def test_a_truncated_last_line_is_skipped(tmp_path: Path, plan: Plan) -> None:
    whole = _line(case_record(plan, "b"))
    path = _write(
        tmp_path / "results.jsonl", _line(case_record(plan, "a")), whole[: len(whole) // 2]
    )
    read = read_results(path)
    assert [r.case_name for r in read.records] == ["a"]
    assert read.skipped == 1
    assert "line 2: not JSON" in read.problems[0]
    assert "1 line(s) skipped" in read.summary(path)


def test_a_lone_number_is_skipped(tmp_path: Path, plan: Plan) -> None:
    path = _write(tmp_path / "results.jsonl", "42\n", _line(case_record(plan, "a")))
    read = read_results(path)
    assert [r.case_name for r in read.records] == ["a"]
    assert read.skipped == 1
    assert "JSON object" in read.problems[0]


def test_a_record_without_function_is_skipped(tmp_path: Path, plan: Plan) -> None:
    broken = case_record(plan, "b")
    del broken["function"]
    path = _write(tmp_path / "results.jsonl", _line(case_record(plan, "a")), _line(broken))
    read = read_results(path)
    assert [r.case_name for r in read.records] == ["a"]
    assert read.skipped == 1
    assert "'function'" in read.problems[0]


def test_a_nan_token_is_not_standard_json_and_is_refused(tmp_path: Path, plan: Plan) -> None:
    # What json.dumps writes by default for a float NaN: not JSON, so not a record.
    line = json.dumps(case_record(plan, "a", timing={"cold_ms": math.nan, "warm": None})) + "\n"
    assert "NaN" in line
    path = _write(tmp_path / "results.jsonl", line, _line(case_record(plan, "b")))
    read = read_results(path)
    assert [r.case_name for r in read.records] == ["b"]
    assert read.skipped == 1
    assert "not JSON" in read.problems[0]


def test_a_nan_string_in_timing_is_read_as_a_float_nan(tmp_path: Path, plan: Plan) -> None:
    record = case_record(plan, "a", timing={"cold_ms": "NaN", "warm": None})
    path = _write(tmp_path / "results.jsonl", _line(record))
    read = read_results(path)
    assert read.skipped == 0
    (got,) = read.records
    assert got.timing is not None
    assert isinstance(got.timing.cold_ms, float) and math.isnan(got.timing.cold_ms)


def test_a_case_recorded_twice_keeps_the_first(tmp_path: Path, plan: Plan) -> None:
    second = case_record(plan, "a", outcome="error")
    path = _write(tmp_path / "results.jsonl", _line(case_record(plan, "a")), _line(second))
    read = read_results(path)
    assert [(r.case_name, r.outcome) for r in read.records] == [("a", Outcome.PASS)]
    assert read.skipped == 1
    assert "recorded twice" in read.problems[0]


def test_a_newer_schema_is_refused_in_one_sentence(tmp_path: Path, plan: Plan) -> None:
    path = _write(
        tmp_path / "results.jsonl",
        _line(case_record(plan, "a")),
        _line(case_record(plan, "b", schema=max(RECORD_SCHEMAS) + 1)),
    )
    with pytest.raises(ResultsError) as info:
        read_results(path)
    message = str(info.value)
    assert f"schema {max(RECORD_SCHEMAS) + 1}" in message and "upgrade portbench" in message
    assert "\n" not in message and message.count(". ") == 0


def test_a_linked_results_file_is_refused_not_followed(tmp_path: Path, plan: Plan) -> None:
    target = _write(tmp_path / "elsewhere.jsonl", _line(case_record(plan, "a")))
    cell = tmp_path / "cell"
    cell.mkdir()
    (cell / "results.jsonl").symlink_to(target)
    with pytest.raises(ResultsError, match="symbolic link"):
        read_results(cell / "results.jsonl")
    # A link to something that is not a file at all is refused the same way.
    (cell / "results.jsonl").unlink()
    os.mkfifo(tmp_path / "fifo")
    (cell / "results.jsonl").symlink_to(tmp_path / "fifo")
    with pytest.raises(ResultsError, match="symbolic link"):
        read_results(cell / "results.jsonl")


def test_an_oversized_line_is_skipped_and_the_next_line_read(tmp_path: Path, plan: Plan) -> None:
    huge = case_record(plan, "b", reason="x" * (MAX_LINE_BYTES + 10))
    path = _write(
        tmp_path / "results.jsonl",
        _line(case_record(plan, "a")),
        _line(huge),
        _line(case_record(plan, "c")),
    )
    read = read_results(path)
    assert [r.case_name for r in read.records] == ["a", "c"]
    assert read.skipped == 1
    assert f"longer than {MAX_LINE_BYTES} bytes" in read.problems[0]


def test_a_missing_file_holds_no_records(tmp_path: Path) -> None:
    read = read_results(tmp_path / "results.jsonl")
    assert (read.records, read.skipped, read.summary(tmp_path)) == ((), 0, "")


DAMAGE = [
    b"42\n",  # a lone number
    b"not json at all\n",
    b'{"schema": 2, "kind": "case", "cold_ms": NaN}\n',  # a NaN token
    b"x" * (MAX_LINE_BYTES + 1) + b"\n",  # oversized
]


def _damage(results: Path) -> int:
    """Append the damage a case or a crash could leave; return how many lines were added."""
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    no_function = dict(lines[0])
    del no_function["function"]
    duplicate = dict(lines[0], outcome="error")
    added = [
        *DAMAGE,
        (json.dumps(no_function) + "\n").encode(),
        (json.dumps(duplicate) + "\n").encode(),
        b'{"schema": 2, "kind": "case", "cas',  # cut short, last
    ]
    with results.open("ab") as handle:
        handle.write(b"".join(added))
    return len(added)


def test_portbench_report_over_damaged_lines_exits_0_and_says_how_many(tmp_path: Path) -> None:
    plan = make_plan(tmp_path / "src", {"demo": CASES})
    cell = tmp_path / "run" / "python-cpu-host"
    assert run_supervisor(plan, cell).returncode == 0
    damaged = _damage(cell / "results.jsonl")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "portbench.cli",
            "report",
            str(tmp_path / "run"),
            "--out",
            str(tmp_path / "report"),
            "--no-study",
        ],
        capture_output=True,
        text=True,
        env=runner_env(),
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{damaged} unreadable result lines" in " ".join(proc.stdout.split())
    assert (tmp_path / "report" / "index.html").exists()
    # The three recorded cases still count, and the cell is complete.
    assert "all complete" in " ".join(proc.stdout.split())


def test_bench_and_validate_skip_damaged_lines(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from portbench.commands.bench import failures_table
    from portbench.commands.validate import _records

    plan = make_plan(tmp_path / "src", {"demo": CASES})
    cell = tmp_path / "run" / "python-cpu-host"
    assert run_supervisor(plan, cell).returncode == 0
    damaged = _damage(cell / "results.jsonl")
    out = io.StringIO()
    records = _records([tmp_path / "run"], "python", Console(file=out, width=300))
    assert len(records) == 3
    assert f"{damaged} line(s) skipped" in out.getvalue()
    assert failures_table(cell / "results.jsonl") is None  # the duplicate error is not kept


def test_failures_table_says_how_many_lines_it_skipped(tmp_path: Path, plan: Plan) -> None:
    import io

    from rich.console import Console

    from portbench.commands.bench import failures_table

    failed = case_record(
        plan,
        "a",
        outcome="fail",
        stage="call",
        category="type",
        error={"type": "TypeError", "message": "bad [bold]input[/bold]", "traceback": ""},
    )
    path = _write(tmp_path / "results.jsonl", _line(failed), *DAMAGE)
    table = failures_table(path)
    assert table is not None
    out = io.StringIO()
    Console(file=out, width=300, color_system=None).print(table)
    text = out.getvalue()
    assert f"{len(DAMAGE)} unreadable line(s) skipped" in str(table.title)
    assert "demo.demo::a" in text and "bad [bold]input[/bold]" in text
