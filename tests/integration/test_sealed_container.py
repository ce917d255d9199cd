"""A hostile case in a real container cannot reach the host or the cell's records.

The case plants links where the host used to write (the symlink-chown and symlink-append
escapes: a root host following them changed owners of, or appended a line the case chose
to, files outside the run directory), and rewrites the records file. Each attempt is run,
then the cell is resumed, as a user would. Each test here failed on bff9f2c."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import read_jsonl

from integration.conftest import docker_bench, project_with_cases

pytestmark = pytest.mark.docker

CELL = "jax-cpu-current"

ESCAPES = """
import os, sys
from portbench_runner.api import case

TARGET_OWNER = {owner!r}
TARGET_APPEND = {append!r}

def _plant():
    planted = []
    for link, target in (("/portbench/run/planted", TARGET_OWNER),
                         ("/portbench/run/logs/container.log", TARGET_APPEND)):
        try:
            if os.path.lexists(link):
                os.unlink(link)
            os.symlink(target, link)
            planted.append(link)
        except OSError:
            pass
    return planted

@case("fails-for-real")
def fails(ctx):
    ctx.measure(len, "abc")
    ctx.check(False, "this failure must stay a failure")

@case("plants-links")
def plants(ctx):
    ctx.measure(_plant, warm=False)
    print("ssh-ed25519 AAAA-the-case-chose-this-line attacker", flush=True)
    sys.stderr.write("ssh-ed25519 AAAA-the-case-chose-this-line attacker\\n")

@case("rewrites-the-records")
def rewrites(ctx):
    def rewrite():
        path = "/portbench/run/results.jsonl"
        try:
            with open(path) as handle:
                text = handle.read()
            with open(path, "w") as handle:
                handle.write(text.replace('"outcome":"fail"', '"outcome":"pass"'))
            return True
        except OSError:
            return False
    ctx.measure(rewrite, warm=False)
"""


def _snapshot(path: Path) -> tuple[int, int, int, bytes]:
    info = path.stat()
    return info.st_uid, info.st_gid, info.st_mode, path.read_bytes()


def test_links_a_case_plants_are_never_followed_and_records_stay_true(
    jax_image: str, tmp_path: Path
) -> None:
    owner_target = tmp_path / "root-owned-file"
    owner_target.write_text("belongs to the host\n")
    owner_target.chmod(0o600)
    append_target = tmp_path / "authorized_keys"
    append_target.write_text("the host's own key\n")
    before = {p: _snapshot(p) for p in (owner_target, append_target)}
    cases = ESCAPES.format(owner=str(owner_target), append=str(append_target))
    # Cases run in file order: the failure is recorded before the rewrite runs.
    home = project_with_cases(tmp_path, "jax", cases)
    run_dir = tmp_path / "run"
    first = docker_bench(home, run_dir)
    assert first.returncode == 0, first.stderr + first.stdout
    resumed = docker_bench(home, tmp_path / "unused", "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stderr + resumed.stdout
    for path, snapshot in before.items():
        assert _snapshot(path) == snapshot, f"{path} was changed through a link the case planted"
    cell = run_dir / CELL
    assert not [p for p in cell.rglob("*") if p.is_symlink()]
    records = {r["case_name"]: r for r in read_jsonl(cell / "results.jsonl")}
    assert records["fails-for-real"]["outcome"] == "fail"
    assert len(records) == 3


def test_a_case_cannot_reach_the_supervisor_through_proc(jax_image: str, tmp_path: Path) -> None:
    """The supervisor's stdout carries the records: the case (same user) cannot open it."""
    cases = """
import os
from portbench_runner.api import case

def _open_supervisor_stdout():
    try:
        fd = os.open("/proc/1/fd/1", os.O_WRONLY)
    except OSError:
        return False
    os.write(fd, b'{"type": "record", "record": {"kind": "case"}}\\n')
    os.close(fd)
    return True

@case("opens-proc-1-fd-1")
def opens(ctx):
    reached = ctx.measure(_open_supervisor_stdout, warm=False)
    ctx.check(not reached, "the case wrote into the supervisor's record stream")
"""
    run_dir = tmp_path / "run"
    proc = docker_bench(project_with_cases(tmp_path, "jax", cases), run_dir)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    (record,) = read_jsonl(run_dir / CELL / "results.jsonl")
    assert record["outcome"] == "pass", record
    session = read_jsonl(run_dir / CELL / "sessions.jsonl")[-1]
    assert session["rejected_lines"] == 0


def test_the_host_never_changes_owners_in_the_run_directory(jax_image: str, tmp_path: Path) -> None:
    """Nothing in the cell directory belongs to the cell's user: the container never writes it."""
    cases = """
from portbench_runner.api import case

@case("plain")
def plain(ctx):
    ctx.measure(len, "abc")
"""
    run_dir = tmp_path / "run"
    proc = docker_bench(project_with_cases(tmp_path, "jax", cases), run_dir)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    owners = {p.lstat().st_uid for p in (run_dir / CELL).rglob("*")}
    assert owners == {os.geteuid()}
