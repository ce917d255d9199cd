"""Three hostile cases, each with real processes: a 100 KB name, a JSON line nested past the
decoder's recursion limit, and a supervisor killed in the middle of a case."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import (
    RUNNERS,
    jax_cpu_bench,
    make_plan,
    project_with_cases,
    read_jsonl,
    run_supervisor,
    runner_env,
    supervise_cmd,
    validate,
    wait_for_records,
    with_default_sigint,
)

from portbench.results import read_results, read_sessions
from portbench_runner.contract import MAX_LINE_BYTES, PlanInvalid, load_plan

LONG = "n" * 100_000
RUNNER = (sys.executable, "-m", "portbench_runner")
REPORT = (sys.executable, "-m", "portbench.cli", "report", "--no-study")

LONG_NAME = f"""
import time
from portbench_runner.api import case

@case("short")
@case("{LONG}")
def run(ctx):
    ctx.measure(time.sleep, 0.01, warm=False)
"""


def _processes_with(marker: str) -> list[int]:
    """Live processes whose command line names ``marker`` (a test's own temp folder)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != b"Z":
            found.append(int(name))
    return found


def _gone(marker: str, within_s: float = 30.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not _processes_with(marker):
            return True
        time.sleep(0.1)
    return False


# -- a 100 KB name ---------------------------------------------------------------------------


def test_a_100_kb_case_name_is_refused_before_the_cell_starts(tmp_path: Path) -> None:
    home = project_with_cases(tmp_path, "jax", LONG_NAME)
    run_dir = tmp_path / "run"
    done = subprocess.run(
        jax_cpu_bench("--profile", "host", "--run-dir", str(run_dir)),
        env={**os.environ, "PORTBENCH_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "case name of 100000 characters" in done.stderr
    assert "give it a shorter name" in done.stderr
    # One sentence, which does not print the name.
    assert len(done.stderr) < 2000
    assert not run_dir.exists()


def test_a_plan_written_by_hand_with_a_100_kb_name_is_refused_by_the_runner(
    tmp_path: Path,
) -> None:
    plan_path = make_plan(tmp_path, {"ok": LONG_NAME.replace(LONG, "other")})
    plan = json.loads(plan_path.read_text())
    plan["functions"][0]["cases"][1]["name"] = LONG
    plan["functions"][0]["cases"][1]["id"] = f"demo.ok::{LONG}"
    plan_path.write_text(json.dumps(plan))
    with pytest.raises(PlanInvalid, match="case name of 100000 characters"):
        load_plan(str(plan_path))
    done = subprocess.run(
        [*RUNNER, "supervise", "--plan", str(plan_path), "--scratch", str(tmp_path / "scratch")],
        env={**os.environ, "PYTHONPATH": str(RUNNERS)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "give it a shorter name" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr) < 2000


def test_commands_to_a_worker_never_wait_on_its_pipe() -> None:
    """More commands than the pipe holds: queued, written as the worker reads, never a wait
    (a supervisor blocked on a worker that is blocked on it was the 100 KB name's deadlock)."""
    from portbench_runner.contract import Run
    from portbench_runner.workerproc import WorkerProcess

    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    worker = WorkerProcess.__new__(WorkerProcess)  # only its command pipe is used here
    worker.stdin_fd, worker.outbox, worker.proc = write_fd, b"", None  # type: ignore[assignment]
    run = Run("demo.f::" + "c" * 500)
    started = time.monotonic()
    for _ in range(1000):  # about 0.5 MB, past any pipe buffer
        assert worker.send(run)
    assert time.monotonic() - started < 5
    assert worker.outbox  # what the pipe could not take yet waits here
    received = b""
    while worker.outbox or received.count(b"\n") < 1000:
        received += os.read(read_fd, 1 << 16)
        worker.flush()
    assert received.count(b"\n") == 1000
    os.close(read_fd)
    os.close(write_fd)


SLOW = """
import os, time
from portbench_runner.api import case

@case("c1")
@case("c2")
@case("c3")
@case("c4")
@case("c5")
def slow(ctx):
    # Says which case runs, for the test (never read by portbench).
    open(os.path.join(os.environ["PORTBENCH_TEST_MARKS"], ctx.case_id.split("::")[1]), "w").close()
    ctx.measure(time.sleep, 3.0 if ctx.case_id.endswith("c3") else 0.2, warm=False)
"""


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_cell_leaves_no_process_behind(tmp_path: Path, how: signal.Signals) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    plan = make_plan(tmp_path, {"slow": SLOW})
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        with_default_sigint(supervise_cmd(plan, run_dir)),
        env={**runner_env(), "PORTBENCH_TEST_MARKS": str(marks)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not (marks / "c3").exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    # A terminal's Ctrl-C reaches the whole foreground group; SIGTERM only the host.
    if how == signal.SIGINT:
        os.killpg(proc.pid, how)
    else:
        proc.send_signal(how)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert _gone(str(plan)), _processes_with(str(plan))
    (session,), _ = read_sessions(run_dir / "sessions.jsonl")
    assert session.status == "interrupted"


# -- a line nested past the recursion limit --------------------------------------------------

DEEP = """
import os, sys
from portbench_runner.api import case

@case("before")
@case("deep")
@case("after")
def run(ctx):
    if ctx.case_id.endswith("deep"):
        fd = int(sys.argv[sys.argv.index("--pipe") + 1])
        depth = 200_000  # far past the interpreter's recursion limit, under the line bound
        os.write(fd, b"[" * depth + b"]" * depth + b"\\n")
    ctx.measure(len, "abc")
"""


def test_a_deeply_nested_line_on_the_pipe_is_the_writing_cases_violation(tmp_path: Path) -> None:
    assert MAX_LINE_BYTES > 400_000
    plan = make_plan(tmp_path, {"deep": DEEP})
    run_dir = tmp_path / "run"
    proc = run_supervisor(plan, run_dir)
    assert proc.returncode == 0, proc.stderr
    assert "RecursionError" not in proc.stderr and "Traceback" not in proc.stderr
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "results.jsonl")}
    assert records["deep"]["outcome"] == "error"
    assert records["deep"]["error"]["type"] == "ProtocolViolation"
    assert "nested deeper than 32 levels" in records["deep"]["error"]["message"]
    assert records["before"]["outcome"] == records["after"]["outcome"] == "pass"
    for record in records.values():
        validate(record, "record")
    (session,) = read_jsonl(run_dir / "sessions.jsonl")
    assert session["protocol_violations"] == 1 and session["status"] == "complete"


def _deep_line(depth: int = 5000) -> bytes:
    return b'{"kind": "case", "x": ' + b"[" * depth + b"]" * depth + b"}\n"


def test_a_deeply_nested_line_in_the_host_files_is_skipped_and_counted(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"deep": DEEP.replace('endswith("deep")', "endswith('none')")})
    run_dir = tmp_path / "cells" / "run" / "python-cpu-host"
    assert run_supervisor(plan, run_dir).returncode == 0
    with open(run_dir / "results.jsonl", "ab") as handle:
        handle.write(_deep_line())
    read = read_results(run_dir / "results.jsonl")
    assert len(read.records) == 3 and read.skipped == 1
    assert "nested deeper than 32 levels" in read.summary(run_dir / "results.jsonl")
    # The host's other readers: report, compare and a resumed cell finish, saying so.
    env = runner_env()
    report = subprocess.run(
        [*REPORT, str(run_dir.parent), "--out", str(tmp_path / "report")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert report.returncode == 0, report.stderr
    assert "Traceback" not in report.stderr + report.stdout
    compare = subprocess.run(
        [sys.executable, "-m", "portbench.cli", "compare", str(run_dir), str(run_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert compare.returncode == 0, compare.stderr
    assert "Traceback" not in compare.stderr + compare.stdout
    resumed = run_supervisor(plan, run_dir)
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr
    said = " ".join(resumed.stderr.split())  # the console wraps long lines
    assert "1 line(s) skipped as unreadable" in said
    assert "nested deeper than 32 levels" in said
    # plan.json and env.json: the cell stays listed (failed), the report still completes.
    (run_dir / "plan.json").write_bytes(_deep_line())
    (run_dir / "env.json").write_bytes(_deep_line())
    again = subprocess.run(
        [*REPORT, str(run_dir.parent), "--out", str(tmp_path / "report-2")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr + again.stdout
    refused = subprocess.run(
        [sys.executable, "-m", "portbench.cli", "compare", str(run_dir), str(run_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "nested deeper than 32 levels" in " ".join(refused.stderr.split())


# -- a supervisor killed in the middle of a case ---------------------------------------------


def _supervisor_of(host: int) -> int:
    found = subprocess.run(
        ["pgrep", "-f", "portbench_runner supervise", "-P", str(host)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert len(found) == 1, found
    return int(found[0])


def test_a_killed_supervisors_record_names_the_running_case_and_resume_reruns_it(
    tmp_path: Path,
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    plan = make_plan(tmp_path, {"slow": SLOW})
    run_dir = tmp_path / "run"
    env = {**runner_env(), "PORTBENCH_TEST_MARKS": str(marks)}
    proc = subprocess.Popen(
        supervise_cmd(plan, run_dir), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    wait_for_records(run_dir / "results.jsonl", 2, proc)
    deadline = time.monotonic() + 60
    while not (marks / "c3").exists():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(0.3)  # c3 sleeps three seconds: it is surely running
    os.kill(_supervisor_of(proc.pid), signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    text = err.decode()
    assert "while demo.slow::c3 ran" in text and "None" not in text
    records = read_jsonl(run_dir / "results.jsonl")
    assert [(r["case_name"], r["outcome"]) for r in records] == [
        ("c1", "pass"),
        ("c2", "pass"),
        ("c3", "fail"),
    ]
    crash = records[2]
    assert crash["category"] == "crash" and crash["recorded_by"] == "host"
    assert not (marks / "c4").exists()  # no case that had not started is recorded
    assert _gone(str(plan))  # the worker went with its supervisor

    resumed = subprocess.run(
        supervise_cmd(plan, run_dir),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    lines = read_jsonl(run_dir / "results.jsonl")
    assert len(lines) == 6  # the host's record of c3 stays, superseded
    read = read_results(run_dir / "results.jsonl")
    assert read.skipped == 0 and read.superseded == 1
    assert [(r.case_name, r.outcome.value) for r in read.records] == [
        ("c1", "pass"),
        ("c2", "pass"),
        ("c3", "pass"),
        ("c4", "pass"),
        ("c5", "pass"),
    ]
    for line in lines:
        validate(line, "record")
    sessions, _ = read_sessions(run_dir / "sessions.jsonl")
    assert [s.status.value for s in sessions] == ["aborted", "complete"]
    assert sessions[1].superseded == 1
