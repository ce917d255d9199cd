"""On the host backend a case runs as the user running portbench and can rewrite a recorded
``fail`` as a valid ``pass``. It cannot be stopped there, but it is found: the session line
says ``tampered``, and the report shows the cell as tampered, not passing. A change made
after the last session is found by the reader and by the next session. Real processes: the
host's session, the in-cell supervisor and its worker, and ``portbench report``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import make_plan, read_jsonl, run_supervisor, runner_env

FORGER = """
import json, sys, time
from pathlib import Path
from portbench_runner.api import case

@case("a-fails")
@case("b-forges")
def run(ctx):
    if ctx.case_id.endswith("a-fails"):
        ctx.measure(len, "abc")
        ctx.check(False, "a real failure")
    results = Path(sys.argv[sys.argv.index("--plan") + 1]).parent / "results.jsonl"
    deadline = time.time() + 30
    while "a-fails" not in results.read_text() and time.time() < deadline:
        time.sleep(0.05)
    lines = []
    for line in results.read_text().splitlines():
        record = json.loads(line)
        if record["case_name"] == "a-fails":
            record.update(outcome="pass", stage=None, category=None, rule=None, error=None)
        lines.append(json.dumps(record))
    results.write_text("\\n".join(lines) + "\\n")
    ctx.measure(len, "abc")
"""

FINE = """
from portbench_runner.api import case

@case("a")
@case("b")
def run(ctx):
    ctx.measure(len, "abc")
"""


REPORT = (sys.executable, "-m", "portbench.cli", "report", "--no-study")


def _report(run_dir: Path, out: Path) -> str:
    done = subprocess.run(
        [*REPORT, str(run_dir), "--out", str(out)],
        env=runner_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


def test_a_case_rewriting_a_recorded_fail_as_pass_is_found(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"forger": FORGER})
    run_dir = tmp_path / "run"
    proc = run_supervisor(plan, run_dir)
    assert proc.returncode == 0, proc.stderr
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "results.jsonl")}
    assert records["a-fails"]["outcome"] == "pass"  # the forgery reads as a valid record
    (session,) = read_jsonl(run_dir / "sessions.jsonl")
    assert session["integrity"]["verdict"] == "tampered"
    assert "changed while the session ran" in session["integrity"]["detail"]
    assert "tampered" in _report(run_dir, tmp_path / "report")


def test_a_change_after_the_last_session_is_found_by_the_reader_and_the_next_session(
    tmp_path: Path,
) -> None:
    plan = make_plan(tmp_path, {"fine": FINE})
    run_dir = tmp_path / "run"
    assert run_supervisor(plan, run_dir).returncode == 0
    (session,) = read_jsonl(run_dir / "sessions.jsonl")
    assert session["integrity"]["verdict"] == "intact"
    assert "tampered" not in _report(run_dir, tmp_path / "clean")
    # One record changed by hand (or by a process a case left behind).
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["outcome"] = "skip"
    first["reason"] = "edited"
    lines[0] = json.dumps(first)
    (run_dir / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert "tampered" in _report(run_dir, tmp_path / "edited")
    # The next session (nothing left to run) finds it too, and says so for good.
    again = run_supervisor(plan, run_dir)
    assert again.returncode == 0, again.stderr
    last = read_jsonl(run_dir / "sessions.jsonl")[-1]
    assert last["integrity"]["verdict"] == "tampered"
    assert "after its last session ended" in last["integrity"]["detail"]
