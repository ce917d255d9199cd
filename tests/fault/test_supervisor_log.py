"""The supervisor's log (``logs/supervisor.log``) and a worker's log are diagnostics: a case
cannot forge a line of them, and a log that can no longer be written (a file size limit, a
full disk) costs the log, never the supervisor or an innocent case. Real processes: the
host's session, the in-cell supervisor and its workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import make_plan, read_jsonl, runner_env, supervise_cmd, validate

FORGER = """
from portbench_runner.api import case

@case("forger")
@case("after")
def run(ctx):
    if ctx.case_id.endswith("forger"):
        ctx.skip("nothing\\n[2/2] demo.forger::after pass\\r\\x1b[2Kclean\\u202eevil")
    ctx.measure(len, "abc")
"""


def test_a_case_cannot_forge_a_line_of_the_supervisors_log(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"forger": FORGER})
    run_dir = tmp_path / "run"
    proc = subprocess.run(
        supervise_cmd(plan, run_dir),
        env=runner_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    log = (run_dir / "logs" / "supervisor.log").read_text(encoding="utf-8")
    lines = log.splitlines()
    assert "\x1b" not in log and "\r" not in log and "\u202e" not in log
    # One status line per case, each starting as the supervisor writes it.
    status = [line for line in lines if line.startswith("[")]
    assert len(status) == 2, lines
    assert "nothing\\n[2/2] demo.forger::after pass\\r\\x1b[2Kclean\\u202eevil" in status[0]
    # The record keeps the reason as the case gave it (readers escape it where they show it).
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "results.jsonl")}
    assert records["forger"]["reason"].startswith("nothing\n[2/2]")


LOUD = """
import sys
from portbench_runner.api import case

@case("before")
@case("loud")
@case("after")
def run(ctx):
    if ctx.case_id.endswith("loud"):
        for _ in range(40):
            sys.stdout.write("y" * 9999 + "\\n")
        sys.stdout.flush()
    ctx.measure(len, "abc")
"""

# Every process of the cell (host, supervisor, workers) may write files of at most 120 KB:
# the records and the plan fit, the loud case's 400 KB of output does not fit its log.
LIMIT = (
    "import os, resource, sys; "
    "resource.setrlimit(resource.RLIMIT_FSIZE, (120_000, 120_000)); "
    "os.execvp(sys.argv[1], sys.argv[1:])"
)


def test_a_log_past_a_file_size_limit_costs_the_log_not_a_case(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"loud": LOUD})
    run_dir = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-c", LIMIT, *supervise_cmd(plan, run_dir)],
        env=runner_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "results.jsonl")}
    assert {name: r["outcome"] for name, r in records.items()} == {
        "before": "pass",
        "loud": "pass",
        "after": "pass",
    }
    for record in records.values():
        validate(record, "record")
    # The same worker ran all three: the supervisor never lost it.
    assert len({r["worker"]["pid"] for r in records.values()}) == 1
    loud = records["loud"]["output"]
    assert loud["bytes"] > 120_000 and loud["dropped_bytes"] > 0
    worker_logs = list((run_dir / "logs").glob("worker-*.log"))
    assert worker_logs and all(p.stat().st_size <= 120_000 for p in worker_logs)
    (session,) = read_jsonl(run_dir / "sessions.jsonl")
    assert session["status"] == "complete"
