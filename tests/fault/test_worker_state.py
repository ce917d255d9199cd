"""What a case leaves in its worker does not reach the next case: a changed working
directory and environment are put back, and a worker short of file descriptors retires so
the next case gets a fresh one. Real processes: the host's session, the in-cell supervisor
and its workers, under a descriptor limit of 256."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import make_plan, read_jsonl, runner_env, supervise_cmd, validate

STATE = """
import os
from portbench_runner.api import case

ELSEWHERE = {elsewhere!r}
KEPT = []

@case("a-changes-state")
@case("b-sees-state")
@case("c-takes-every-fd")
@case("d-after")
def run(ctx):
    name = ctx.case_id.split("::")[-1]
    if name == "a-changes-state":
        os.chdir(ELSEWHERE)
        os.environ["PB_TEST_LEAK"] = "1"
        del os.environ["PB_TEST_KEEP"]
        os.environ["PB_TEST_CHANGED"] = "changed"
    elif name == "b-sees-state":
        ctx.check(os.getcwd() != ELSEWHERE, "the working directory leaked")
        ctx.check("PB_TEST_LEAK" not in os.environ, "a variable leaked")
        ctx.check(os.environ.get("PB_TEST_KEEP") == "kept", "a removed variable stayed gone")
        ctx.check(os.environ.get("PB_TEST_CHANGED") == "as set", "a changed variable stayed")
    elif name == "c-takes-every-fd":
        try:
            while True:
                KEPT.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
    else:
        with open(os.devnull, "rb"):
            pass
    ctx.measure(len, "abc")
"""

LIMIT = (
    "import os, resource, sys; "
    "resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1])); "
    "os.execvp(sys.argv[1], sys.argv[1:])"
)


def test_a_case_leaves_nothing_to_the_next(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plan = make_plan(tmp_path, {"state": STATE.format(elsewhere=str(elsewhere))})
    run_dir = tmp_path / "run"
    env = {**runner_env(), "PB_TEST_KEEP": "kept", "PB_TEST_CHANGED": "as set"}
    proc = subprocess.run(
        [sys.executable, "-c", LIMIT, *supervise_cmd(plan, run_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "results.jsonl")}
    for record in records.values():
        validate(record, "record")
    assert {n: r["outcome"] for n, r in records.items()} == {
        "a-changes-state": "pass",
        "b-sees-state": "pass",
        "c-takes-every-fd": "pass",
        "d-after": "pass",
    }, {n: (r.get("reason"), r.get("error")) for n, r in records.items()}
    pids = {n: r["worker"]["pid"] for n, r in records.items()}
    # The state was put back in the same worker; the worker left without descriptors retired.
    assert pids["a-changes-state"] == pids["b-sees-state"] == pids["c-takes-every-fd"]
    assert pids["d-after"] != pids["c-takes-every-fd"]
    (session,) = read_jsonl(run_dir / "sessions.jsonl")
    assert session["status"] == "complete" and session["protocol_violations"] == 0
    logs = "".join(p.read_text() for p in (run_dir / "logs").glob("worker-*.log"))
    assert "retires after" in logs and "file descriptor" in logs
