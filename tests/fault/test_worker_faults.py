"""Real workers that crash, abort, hang, raise and get killed: each costs one case, never the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import make_plan, read_jsonl, run_supervisor, runner_env, supervise_cmd, validate

FAULTS = """
import ctypes, os, time
from portbench_runner.api import case

@case("before")
def before(ctx):
    out = ctx.measure(sum, [1, 2, 3])
    ctx.check_equal(out, 6)

@case("segfault")
def segfault(ctx):
    ctx.measure(ctypes.string_at, 0)

@case("abort")
def abort(ctx):
    ctx.measure(os.abort)

@case("hang")
def hang(ctx):
    ctx.measure(time.sleep, 600)

@case("exit-code")
def exit_code(ctx):
    ctx.measure(os._exit, 7)

@case("memory-error")
def memory_error(ctx):
    def allocate():
        raise MemoryError("cannot allocate 1 TiB")
    ctx.measure(allocate)

@case("after")
def after(ctx):
    out = ctx.measure(max, [4, 9, 2])
    ctx.check_equal(out, 9)
"""

BROKEN_IMPORT = """
from portbench_runner.api import case
raise RuntimeError("this case file is broken")

@case("never")
def never(ctx):
    pass
"""


def _by_name(records):
    return {r["case_name"]: r for r in records}


def test_each_fault_costs_one_case_and_the_run_finishes(tmp_path: Path) -> None:
    plan = make_plan(
        tmp_path, {"faults": FAULTS, "broken": BROKEN_IMPORT}, case_timeouts={"hang": 2.0}
    )
    run_dir = tmp_path / "run"
    proc = run_supervisor(plan, run_dir)
    assert proc.returncode == 0, proc.stderr
    records = read_jsonl(run_dir / "results.jsonl")
    by_name = _by_name(records)
    assert len(records) == 8
    assert by_name["before"]["outcome"] == "pass"
    assert by_name["after"]["outcome"] == "pass"
    assert (by_name["segfault"]["category"], by_name["segfault"]["exit"]["signal"]) == (
        "crash",
        "SIGSEGV",
    )
    assert (by_name["abort"]["category"], by_name["abort"]["exit"]["signal"]) == (
        "crash",
        "SIGABRT",
    )
    assert (by_name["exit-code"]["category"], by_name["exit-code"]["exit"]["code"]) == ("crash", 7)
    assert by_name["hang"]["category"] == "timeout"
    assert by_name["memory-error"]["category"] == "memory"
    assert by_name["memory-error"]["stage"] == "call"
    assert by_name["never"]["outcome"] == "error"
    assert "this case file is broken" in by_name["never"]["error"]["message"]
    for record in records:
        validate(record, "record")
        if record["outcome"] == "fail":
            assert record["rerun"].endswith(f"--case {record['case']}")
    validate(read_jsonl(run_dir / "sessions.jsonl")[0], "session")


def test_a_crash_keeps_the_workers_stderr_tail(tmp_path: Path) -> None:
    source = """
import ctypes, sys
from portbench_runner.api import case

@case("noisy-crash")
def noisy(ctx):
    sys.stderr.write("last words before the crash\\n")
    sys.stderr.flush()
    ctx.measure(ctypes.string_at, 0)
"""
    plan = make_plan(tmp_path, {"noisy": source})
    proc = run_supervisor(plan, tmp_path / "run")
    assert proc.returncode == 0, proc.stderr
    (record,) = read_jsonl(tmp_path / "run" / "results.jsonl")
    assert "last words before the crash" in record["stderr_tail"]


def test_worker_killed_with_sigkill_mid_case(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    source = f"""
import os, time
from portbench_runner.api import case

def wait_to_be_killed():
    with open({str(marker)!r}, "w") as handle:
        handle.write(str(os.getpid()))
    time.sleep(120)

@case("killed")
def killed(ctx):
    ctx.measure(wait_to_be_killed)

@case("next")
def following(ctx):
    ctx.measure(len, "abc")
"""
    plan = make_plan(tmp_path, {"kill": source})
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        supervise_cmd(plan, run_dir),
        env=runner_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline, "the case never started"
        time.sleep(0.05)
    os.kill(int(marker.read_text()), signal.SIGKILL)
    assert proc.wait(timeout=120) == 0
    records = _by_name(read_jsonl(run_dir / "results.jsonl"))
    assert records["killed"]["outcome"] == "fail"
    assert records["killed"]["exit"]["signal"] == "SIGKILL"
    # Not the OOM killer: the cgroup counter did not move, so this is a crash, not memory.
    assert records["killed"]["category"] == "crash"
    assert records["next"]["outcome"] == "pass"


def test_workers_that_die_before_any_case_end_the_cell_with_one_sentence(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"fine": FAULTS}, max_restarts=2)
    # An interpreter that runs the supervisor but exits at once as a worker: every worker
    # dies before its first case.
    python = tmp_path / "python-for-supervisor-only"
    python.write_text(
        f'#!/bin/sh\ncase "$3" in supervise) exec {sys.executable} "$@" --python "$0";; '
        "*) exit 1;; esac\n"
    )
    python.chmod(0o755)
    proc = run_supervisor(plan, tmp_path / "run", python=str(python))
    assert proc.returncode == 3
    assert "3 workers in a row died before finishing a case" in proc.stderr
    assert "Traceback" not in proc.stderr
    session = read_jsonl(tmp_path / "run" / "sessions.jsonl")[0]
    assert session["status"] == "aborted"


def test_fatal_device_problem_stops_the_cell(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"fine": FAULTS})
    text = plan.read_text().replace('"flavor": "cpu"', '"flavor": "cuda"')
    plan.write_text(text)
    proc = run_supervisor(plan, tmp_path / "run")
    assert proc.returncode == 3
    assert "runs on the cpu only" in proc.stderr


def test_python_used_is_this_one(tmp_path: Path) -> None:
    plan = make_plan(
        tmp_path,
        {
            "faults": "from portbench_runner.api import case\n@case('x')\ndef x(ctx):\n    ctx.measure(int)\n"
        },
    )
    proc = run_supervisor(plan, tmp_path / "run", python=sys.executable)
    assert proc.returncode == 0
    env = __import__("json").loads((tmp_path / "run" / "env.json").read_text())
    assert env["python"]["executable"] == sys.executable


def test_bench_lists_the_failures_it_recorded(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from portbench.commands.bench import failures_table

    plan = make_plan(tmp_path, {"faults": FAULTS}, case_timeouts={"hang": 1.0})
    assert run_supervisor(plan, tmp_path / "run").returncode == 0
    table = failures_table(tmp_path / "run" / "results.jsonl")
    assert table is not None
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(table)
    text = out.getvalue()
    for fragment in ("demo.faults::segfault", "crash", "demo.faults::hang", "timeout", "memory"):
        assert fragment in text
    assert "demo.faults::before" not in text


def test_a_fresh_worker_per_case_when_the_plan_asks(tmp_path: Path) -> None:
    source = """
import os
from portbench_runner.api import case

@case("one")
@case("two")
@case("three")
def pid(ctx):
    ctx.measure(os.getpid, warm=False)
"""
    plan = make_plan(tmp_path, {"pids": source}, cases_per_worker=1)
    proc = run_supervisor(plan, tmp_path / "run")
    assert proc.returncode == 0, proc.stderr
    records = read_jsonl(tmp_path / "run" / "results.jsonl")
    assert len({r["worker"]["pid"] for r in records}) == 3
    assert read_jsonl(tmp_path / "run" / "sessions.jsonl")[-1]["status"] == "complete"
