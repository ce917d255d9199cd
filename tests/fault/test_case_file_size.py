"""A case that writes a huge file fails alone: the worker's file size limit (RLIMIT_FSIZE)
stops the write, the next cases of the same worker run, and the records are all written.

Real processes: the host's session, the in-cell supervisor and its worker; the huge file is
a sparse one (a seek far past the limit and one byte), so the test writes nothing large
even where the limit were missing (then the test fails on the file's size)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import make_plan, read_jsonl, run_supervisor, runner_env, supervise_cmd, validate

from portbench_runner.contract.bounds import CASE_FILE_BYTES

HUGE = """
import os, signal
from portbench_runner.api import case

FOLDER = {folder!r}

def _write_past(name, offset):
    with open(os.path.join(FOLDER, name), "wb") as handle:
        handle.seek(offset)
        handle.write(b"x")

@case("before")
@case("sparse-5-gb")
@case("restores-the-signal")
@case("after")
def run(ctx):
    name = ctx.case_id.split("::")[-1]
    if name == "sparse-5-gb":
        _write_past("sparse", 5 << 30)
    elif name == "restores-the-signal":
        # A case may undo the ignored SIGXFSZ: then the write kills its worker.
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        _write_past("killer", 5 << 30)
    ctx.measure(len, "abc")
"""


def test_a_case_writing_a_huge_file_fails_alone(tmp_path: Path) -> None:
    folder = tmp_path / "written"
    folder.mkdir()
    plan = make_plan(tmp_path, {"huge": HUGE.format(folder=str(folder))})
    run_dir = tmp_path / "run"
    proc = run_supervisor(plan, run_dir)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "results.jsonl")}
    assert set(records) == {"before", "sparse-5-gb", "restores-the-signal", "after"}
    for record in records.values():
        validate(record, "record")
    huge = records["sparse-5-gb"]
    assert huge["outcome"] == "error"
    assert "limit of 1024 MiB a file" in huge["reason"]
    assert "File too large" in huge["error"]["message"]
    # The write stopped at the limit: no byte past it reached the disk.
    for name in ("sparse", "killer"):
        assert os.stat(folder / name).st_size <= CASE_FILE_BYTES
    # The same worker ran the next case; the one that restored the signal was killed by
    # it and is recorded as a crash; a fresh worker ran the last case.
    assert records["before"]["outcome"] == records["after"]["outcome"] == "pass"
    assert records["before"]["worker"]["pid"] == huge["worker"]["pid"]
    killed = records["restores-the-signal"]
    assert (killed["outcome"], killed["category"]) == ("fail", "crash")
    assert records["after"]["worker"]["pid"] != huge["worker"]["pid"]
    (session,) = read_jsonl(run_dir / "sessions.jsonl")
    assert session["status"] == "complete"


def test_a_plan_that_cannot_be_written_whole_leaves_none_and_the_cell_starts_again(
    tmp_path: Path,
) -> None:
    plan = make_plan(tmp_path, {"huge": HUGE.format(folder=str(tmp_path))})
    assert plan.stat().st_size > 1000
    run_dir = tmp_path / "run"
    # Files of at most 1,000 bytes: plan.json does not fit. SIGXFSZ is left at its default
    # (it kills): portbench ignores it itself, so the write fails and is undone.
    limit = (
        "import os, resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000)); "
        "os.execvp(sys.argv[1], sys.argv[1:])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", limit, *supervise_cmd(plan, run_dir)],
        env=runner_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode not in (0, -25), proc.stderr  # -25: killed by SIGXFSZ
    assert "Traceback" not in proc.stderr
    assert "plan.json failed" in proc.stderr and "nothing partial was kept" in proc.stderr
    assert not (run_dir / "plan.json").exists()
    assert [p.name for p in run_dir.iterdir() if p.name.endswith(".tmp")] == []
    again = run_supervisor(plan, run_dir)
    assert again.returncode == 0, again.stderr
    assert len(read_jsonl(run_dir / "results.jsonl")) == 4
