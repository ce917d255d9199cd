"""README's journeys on the host backend, with real processes: a CLI killed mid-cell, a
report of nothing, publish's default place, untested functions named in the summary."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from conftest import wait_for_records
from journeyhelp import make_home, run, start

SLOW = """
import time
from portbench_runner.api import case

{decorators}
def slow(ctx):
    ctx.measure(time.sleep, 0.5, warm=False)
"""

SKIPPING = """
from portbench_runner.api import case

@case("nowhere")
def nowhere(ctx):
    ctx.skip("this case does not apply here")
"""

BENCH = ("bench", "--framework", "jax", "--accelerator", "cpu", "--profile", "host")


def _processes_of(marker: str) -> list[int]:
    """Live processes whose command line mentions ``marker`` (the cell's folder)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in cmdline and state != "Z":
            pids.append(int(entry.name))
    return pids


def test_a_killed_cli_stops_its_supervisor_and_resume_finishes(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    decorators = "\n".join(f'@case("s{i:02d}")' for i in range(12))
    home = make_home(tmp_path, SLOW.format(decorators=decorators))
    cell = tmp_path / "run" / "jax-cpu-host"
    proc = start(home, *BENCH, "--run-dir", "run", cwd=tmp_path)
    wait_for_records(cell / "results.jsonl", 2, proc)
    assert _processes_of(str(cell))  # the supervisor and its worker
    proc.kill()
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 15
    while _processes_of(str(cell)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_of(str(cell)) == [], "the cell's processes outlived their CLI"
    kept = (cell / "results.jsonl").read_text().splitlines()
    assert (cell / ".lock").exists()  # the dead run's: the kernel released its flock
    again = run(home, *BENCH, "--run-dir", "run", cwd=tmp_path)
    assert again.returncode != 0 and "--resume run" in again.stderr
    resumed = run(home, "bench", "--resume", "run", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    lines = (cell / "results.jsonl").read_text().splitlines()
    assert lines[: len(kept)] == kept and len(lines) == 12
    assert len({json.loads(line)["case"] for line in lines}) == 12
    assert not (cell / ".lock").exists()


def test_the_summary_names_untested_functions(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    home = make_home(tmp_path, SKIPPING, function="demo.very_long_function_name_that_is_untested")
    done = run(home, *BENCH, "--run-dir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stdout + done.stderr
    text = " ".join(done.stdout.split())
    assert "1 function(s) untested" in text
    assert "demo.very_long_function_name_that_is_untested" in text.replace(" ", "")


def test_a_report_of_folders_without_cells_is_refused(tmp_path: Path) -> None:
    home = make_home(tmp_path, SKIPPING)
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run(home, "report", str(empty), "--out", str(tmp_path / "report"))
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"no portbench cells found in {empty}" in lines[0]
    assert not (tmp_path / "report" / "index.html").exists()


def test_publish_writes_its_archive_where_git_ignores_it(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    home = make_home(tmp_path, SKIPPING)
    assert run(home, *BENCH, "--run-dir", str(tmp_path / "run")).returncode == 0
    report = home / "report"
    made = run(home, "report", str(tmp_path / "run"), "--no-study", "--out", str(report))
    assert made.returncode == 0, made.stderr
    published = run(home, "publish")
    assert published.returncode == 0, published.stderr
    archives = list((home / "dist").glob("report-*.tar.gz"))
    assert len(archives) == 1
    assert not list(home.glob("report-*.tar.gz"))
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "dist/report-x.tar.gz"],
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    assert ignored.returncode == 0, "dist/ is not ignored by git"
