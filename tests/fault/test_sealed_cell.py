"""Hostile and buggy cases against a whole cell, run as a user runs it (``portbench bench``,
host profile, real processes): no case changes another case's record or the records file's
integrity, every reader survives damage, and everything a case starts or prints is bounded.

Each test here failed on bff9f2c (before the host became the only writer of records)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import project_with_cases, read_jsonl

pytest.importorskip("jax", reason="the host-profile cells here run the JAX adapter")

CELL = "jax-cpu-host"


def bench_argv(run_dir: Path, *extra: str) -> list[str]:
    """``portbench bench`` of a one-file JAX manifest, host profile, into ``run_dir``."""
    command = [sys.executable, "-m", "portbench.cli", "bench", "--framework", "jax"]
    return [
        *command,
        "--accelerator",
        "cpu",
        "--profile",
        "host",
        "--run-dir",
        str(run_dir),
        *extra,
    ]


def bench(
    home: Path, run_dir: Path, *extra: str, timeout: float = 300, prefix: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PORTBENCH_HOME=str(home))
    return subprocess.run(
        [*(prefix or []), *bench_argv(run_dir, *extra)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def strict_lines(path: Path) -> list[dict]:
    """Every line of ``path`` as standard JSON (NaN and Infinity tokens refused)."""

    def refuse(name: str) -> None:
        raise ValueError(f"non-standard JSON constant {name}")

    return [json.loads(line, parse_constant=refuse) for line in path.read_text().splitlines()]


def by_name(records: list[dict]) -> dict[str, dict]:
    return {r["case_name"]: r for r in records}


FORGE = """
import json, os
from portbench_runner.api import case

def _pipe_write(line):
    # The protocol pipe is the worker's one inherited descriptor past stdio.
    for fd in range(3, 256):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                os.write(fd, line)
                return
        except OSError:
            continue

@case("forges-the-next")
def forges(ctx):
    message = {"type": "result", "case": "probe.sandbox::victim",
               "outcome": {"outcome": "pass", "timing": None}}
    _pipe_write((json.dumps(message) + "\\n").encode())
    ctx.measure(len, "abc")

@case("victim")
def victim(ctx):
    ctx.measure(len, "abc")
    ctx.check(False, "the victim fails for real")
"""


def test_a_fake_result_on_the_pipe_never_becomes_another_cases_record(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = bench(project_with_cases(tmp_path, "jax", FORGE), run_dir)
    records = read_jsonl(run_dir / CELL / "results.jsonl")
    assert [r["case_name"] for r in records].count("victim") == 1, records
    named = by_name(records)
    assert named["victim"]["outcome"] == "fail"
    assert named["victim"]["reason"] is None or "pipe" not in named["victim"]["reason"]
    assert named["forges-the-next"]["outcome"] == "error"
    assert "protocol pipe" in named["forges-the-next"]["reason"]
    assert proc.returncode == 0, proc.stderr


GARBAGE = FORGE.replace(
    '_pipe_write((json.dumps(message) + "\\\\n").encode())',
    "_pipe_write(b'this is not json\\\\n')",
)


def test_garbage_on_the_pipe_costs_only_the_case_that_wrote_it(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = bench(project_with_cases(tmp_path, "jax", GARBAGE), run_dir)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    named = by_name(read_jsonl(run_dir / CELL / "results.jsonl"))
    assert named["forges-the-next"]["outcome"] == "error"
    assert named["victim"]["outcome"] == "fail"
    assert read_jsonl(run_dir / CELL / "sessions.jsonl")[-1]["status"] == "complete"


# s1 records at once; the others wait until the test releases them (a file appears), so
# the second run meets a cell still in use however slowly a busy machine starts it.
SLOW = """
import os
import time
from portbench_runner.api import case

RELEASE = {release!r}

@case("s1")
def first(ctx):
    ctx.measure(time.sleep, 0.01, warm=False)

@case("s2")
@case("s3")
@case("s4")
@case("s5")
@case("s6")
def held(ctx):
    deadline = time.monotonic() + 120
    while not os.path.exists(RELEASE) and time.monotonic() < deadline:
        time.sleep(0.05)
    ctx.measure(time.sleep, 0.01, warm=False)
"""


def test_a_second_run_on_a_cell_in_use_is_refused_and_nothing_is_recorded_twice(
    tmp_path: Path,
) -> None:
    release = tmp_path / "release"
    home = project_with_cases(tmp_path, "jax", SLOW.format(release=str(release)))
    run_dir = tmp_path / "run"
    env = dict(os.environ, PORTBENCH_HOME=str(home))
    first = subprocess.Popen(
        bench_argv(run_dir),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    results = run_dir / CELL / "results.jsonl"
    deadline = time.monotonic() + 120
    while not (results.exists() and results.read_text().strip()):
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    second = bench(home, tmp_path / "unused", "--resume", str(run_dir))
    release.touch()
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert second.returncode != 0
    assert "is writing" in second.stderr and "Traceback" not in second.stderr
    records = read_jsonl(results)
    assert sorted(r["case_name"] for r in records) == ["s1", "s2", "s3", "s4", "s5", "s6"]


FINE = """
from portbench_runner.api import case

@case("a")
@case("b")
@case("c")
def fine(ctx):
    ctx.measure(len, "abc")
"""


@pytest.mark.parametrize(
    "damage",
    [
        '{"kind": "case", "schema": 1, "outcome": "pass"}',  # no case id
        "42",
        '{"kind": "case", "schema": 1, "case": "probe.sandbox::b", "outcome": "pass"}',
    ],
    ids=["no-case", "a-number", "no-function"],
)
def test_damaged_lines_are_skipped_and_counted_by_resume_and_report(
    tmp_path: Path, damage: str
) -> None:
    home = project_with_cases(tmp_path, "jax", FINE)
    run_dir = tmp_path / "run"
    assert bench(home, run_dir).returncode == 0
    results = run_dir / CELL / "results.jsonl"
    lines = results.read_text().splitlines()
    # The last case's record is replaced by damage: it must run again on resume.
    results.write_text("\n".join([*lines[:-1], damage]) + "\n")
    resumed = bench(home, tmp_path / "unused", "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr
    assert "1 line(s) skipped" in resumed.stdout + resumed.stderr
    valid = [r for r in read_jsonl_tolerant(results) if r.get("function")]
    assert sorted(r["case_name"] for r in valid) == ["a", "b", "c"]
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "portbench.cli",
            "report",
            str(run_dir),
            "--no-study",
            "--out",
            str(tmp_path / "report"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PORTBENCH_HOME=str(home)),
        check=False,
    )
    assert report.returncode == 0, report.stderr
    assert "Traceback" not in report.stderr


def read_jsonl_tolerant(path: Path) -> list[dict]:
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


ORPHANS = """
import os, subprocess, sys, time
from portbench_runner.api import case

MARKER = {marker!r}

@case("starts-a-daemon")
def daemon(ctx):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                             start_new_session=True)
    with open(MARKER, "w") as handle:
        handle.write(str(child.pid))
    ctx.measure(len, "abc")

@case("next")
def after(ctx):
    ctx.measure(len, "abc")
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_detached_process_a_case_starts_is_killed_when_the_case_ends(tmp_path: Path) -> None:
    marker = tmp_path / "daemon.pid"
    home = project_with_cases(tmp_path, "jax", ORPHANS.format(marker=str(marker)))
    proc = bench(home, tmp_path / "run")
    assert proc.returncode == 0, proc.stderr
    pid = int(marker.read_text())
    try:
        assert not _alive(pid), "the case's setsid daemon outlived its cell"
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    named = by_name(read_jsonl(tmp_path / "run" / CELL / "results.jsonl"))
    assert named["starts-a-daemon"]["strays_killed"] == 1


HANG = """
import os, time
from portbench_runner.api import case

MARKER = {marker!r}

@case("hangs")
def hangs(ctx):
    with open(MARKER, "w") as handle:
        handle.write(f"{{os.getpid()}} {{os.getppid()}}")
    ctx.measure(lambda: [None for _ in iter(int, 1)], warm=False)  # spins forever
"""


def test_the_worker_dies_with_its_supervisor(tmp_path: Path) -> None:
    marker = tmp_path / "pids"
    home = project_with_cases(tmp_path, "jax", HANG.format(marker=str(marker)))
    env = dict(os.environ, PORTBENCH_HOME=str(home))
    host = subprocess.Popen(
        bench_argv(tmp_path / "run"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not (marker.exists() and len(marker.read_text().split()) == 2):
        assert host.poll() is None, host.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    worker, supervisor = (int(x) for x in marker.read_text().split())
    os.kill(supervisor, signal.SIGKILL)
    try:
        host.communicate(timeout=120)
        deadline = time.monotonic() + 20
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker), "the worker outlived its killed supervisor"
    finally:
        if _alive(worker):
            os.kill(worker, signal.SIGKILL)
    # The host saw its supervisor die mid-case: the case is recorded, once, as a crash.
    (record,) = read_jsonl(tmp_path / "run" / CELL / "results.jsonl")
    assert (record["case_name"], record["category"]) == ("hangs", "crash")


FLOOD = """
import sys
from portbench_runner.api import case

@case("prints-50-mb")
def floods(ctx):
    def spew():
        block = "x" * 1023 + "\\n"
        for _ in range(50 * 1024):
            sys.stdout.write(block)
        sys.stdout.flush()
    ctx.measure(spew, warm=False)

@case("raises-10-mb")
def big(ctx):
    def boom():
        raise ValueError("y" * 10_000_000)
    ctx.measure(boom)

@case("reports-infinity")
def infinite(ctx):
    ctx.measure(len, "abc")
    ctx.timing["cold_ms"] = float("inf")
    ctx.timing["warm"]["median_ms"] = float("nan")
"""


def test_output_and_records_are_bounded_and_strict_json(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = bench(project_with_cases(tmp_path, "jax", FLOOD), run_dir)
    assert proc.returncode == 0, proc.stderr
    cell = run_dir / CELL
    on_disk = sum(p.stat().st_size for p in cell.rglob("*") if p.is_file())
    assert on_disk < 8 * 1024 * 1024, f"{on_disk} bytes of a 50 MB flood reached the disk"
    for line in (cell / "results.jsonl").read_text().splitlines():
        assert len(line) < 64 * 1024
    named = by_name(strict_lines(cell / "results.jsonl"))
    assert named["prints-50-mb"]["output"]["bytes"] >= 50 * 1024 * 1024
    assert named["prints-50-mb"]["output"]["dropped_bytes"] > 0
    assert named["raises-10-mb"]["category"] is not None
    assert named["reports-infinity"]["timing"]["cold_ms"] == "Infinity"


def test_a_full_disk_ends_the_session_in_one_sentence_with_nothing_partial(tmp_path: Path) -> None:
    names = [f"c{i:02d}" for i in range(20)]
    source = "from portbench_runner.api import case\n\n" + "".join(
        f'@case("{name}")\n' for name in names
    )
    home = project_with_cases(
        tmp_path, "jax", source + "def run(ctx):\n    ctx.measure(len, 'a')\n"
    )
    run_dir = tmp_path / "run"
    # A file size limit makes a write past 9 KB short, then fail (EFBIG), as a full disk does:
    # the plan and env.json fit, the twenty records (about 0.8 KB each) do not.
    limit = (
        "import os, resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (9000, 9000)); "
        "os.execvp(sys.argv[1], sys.argv[1:])"
    )
    proc = bench(home, run_dir, prefix=[sys.executable, "-c", limit])
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "nothing partial was kept" in proc.stdout + proc.stderr
    results = (run_dir / CELL / "results.jsonl").read_text()
    assert results == "" or results.endswith("\n")
    strict_lines(run_dir / CELL / "results.jsonl")  # every line whole
    assert read_jsonl(run_dir / CELL / "sessions.jsonl")[-1]["status"] == "aborted"
    recorded = len(read_jsonl(run_dir / CELL / "results.jsonl"))
    resumed = bench(home, tmp_path / "unused", "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stderr
    assert len(read_jsonl(run_dir / CELL / "results.jsonl")) == 20 > recorded


CASE_BUGS = """
import ctypes, json
from portbench_runner.api import case

class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no str for you")

@case("crash-in-setup")
def setup_crash(ctx):
    ctypes.string_at(0)

@case("unserializable-category")
def bad_category(ctx):
    ctx.measure(len, "abc")
    ctx.check(False, "wrong", category=object())

@case("exception-str-raises")
def bad_str(ctx):
    def boom():
        raise Unprintable()
    ctx.measure(boom)
    raise Unprintable()
"""


def test_case_bugs_are_errors_and_a_setup_crash_says_setup(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = bench(project_with_cases(tmp_path, "jax", CASE_BUGS), run_dir)
    assert proc.returncode == 0, proc.stderr
    named = by_name(read_jsonl(run_dir / CELL / "results.jsonl"))
    assert (named["crash-in-setup"]["category"], named["crash-in-setup"]["stage"]) == (
        "crash",
        "setup",
    )
    assert named["unserializable-category"]["outcome"] == "error"
    assert named["exception-str-raises"]["outcome"] in ("fail", "error")
    assert "__str__ raised" in named["exception-str-raises"]["error"]["message"]


RUNTIME_REGISTERED = """
from portbench_runner.api import case

@case("literal")
def literal(ctx):
    ctx.measure(len, "abc")

for name in ("made-at-run-time",):
    case(name)(literal)
"""


def test_cases_registered_at_run_time_are_refused_not_silently_dropped(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = bench(project_with_cases(tmp_path, "jax", RUNTIME_REGISTERED), run_dir)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        # The manifest refuses it before anything runs: one sentence, no traceback.
        assert "Traceback" not in out and "run time" in out
        return
    (record,) = read_jsonl(run_dir / CELL / "results.jsonl")
    assert record["outcome"] == "error"
    assert "run time" in record["error"]["message"]


def test_an_unmatched_function_leaves_no_cell_directory(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = bench(project_with_cases(tmp_path, "jax", FINE), run_dir, "--functions", "no.such")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert not (run_dir / CELL).exists()
