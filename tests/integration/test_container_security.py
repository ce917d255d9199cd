"""Inside a cell's container: no network, nothing writable but its bounded tmpfs mounts (/tmp
and its scratch folder), and a worker killed by the OOM killer is recorded as memory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from conftest import read_jsonl

from integration.conftest import docker_bench, project_with_cases

pytestmark = pytest.mark.docker

SANDBOX_CASES = """
import os, socket
from portbench_runner.api import case

def _blocked(action):
    try:
        action()
    except OSError:
        return True
    return False

def _write(path):
    with open(path, "w") as handle:
        handle.write("x")

@case("network-is-blocked")
def network(ctx):
    blocked = ctx.measure(_blocked, lambda: socket.create_connection(("1.1.1.1", 53), timeout=3), warm=False)
    ctx.check(blocked, "a connection left the container")

@case("writes-outside-are-blocked")
def writes(ctx):
    outside = ["/portbench/manifests/x", "/portbench/runners/x", "/portbench/plan.json",
               "/portbench/todo.json", "/portbench/x", "/etc/x", "/opt/cell/x", "/x"]
    blocked = ctx.measure(lambda: [p for p in outside if not _blocked(lambda: _write(p))], warm=False)
    ctx.check(blocked == [], "writable outside the scratch mounts: %s" % blocked)

@case("only-bounded-tmpfs-is-writable")
def allowed(ctx):
    ctx.measure(lambda: (_write("/tmp/ok"), _write("/portbench/scratch/ok")), warm=False)
    with open("/proc/mounts") as handle:
        mounts = {line.split()[1]: line.split() for line in handle}
    for path in ("/tmp", "/portbench/scratch"):
        ctx.check(mounts[path][2] == "tmpfs" and "size=" in mounts[path][3],
                  "%s is not a size-bounded tmpfs: %s" % (path, mounts[path]))
    ctx.check(not os.path.exists("/portbench/run"), "the host's run directory is mounted")

@case("not-root")
def user(ctx):
    uid = ctx.measure(os.getuid, warm=False)
    ctx.check(uid != 0, "the cell runs as root")
"""

OOM_CASES = """
from portbench_runner.api import case

@case("allocates-past-the-limit")
def hog(ctx):
    def grab():
        blocks = []
        for _ in range(64):
            blocks.append(bytearray(64 * 1024 * 1024))
        return len(blocks)
    ctx.measure(grab, warm=False)

@case("after")
def after(ctx):
    ctx.measure(len, "abc")
"""


def test_container_blocks_network_and_writes(jax_image: str, tmp_path: Path) -> None:
    home = project_with_cases(tmp_path, "jax", SANDBOX_CASES)
    run_dir = tmp_path / "run"
    proc = docker_bench(home, run_dir)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "jax-cpu-current" / "results.jsonl")}
    for name, record in records.items():
        assert record["outcome"] == "pass", (name, record["error"])
    assert len(records) == 4


def test_oom_killed_worker_is_recorded_as_memory(
    jax_image: str, tmp_path: Path, docker_client: Any
) -> None:
    home = project_with_cases(tmp_path, "jax", OOM_CASES)
    run_dir = tmp_path / "run"
    os.environ["PORTBENCH_MEM_LIMIT"] = "1g"
    try:
        proc = docker_bench(home, run_dir)
    finally:
        del os.environ["PORTBENCH_MEM_LIMIT"]
    assert proc.returncode == 0, proc.stderr + proc.stdout
    records = {r["case_name"]: r for r in read_jsonl(run_dir / "jax-cpu-current" / "results.jsonl")}
    hog = records["allocates-past-the-limit"]
    assert hog["outcome"] == "fail"
    # Either the cgroup's OOM killer sent SIGKILL (told by its oom_kill counter) or Python
    # hit the limit first and raised MemoryError: both are the memory category.
    assert hog["category"] == "memory", hog
    assert records["after"]["outcome"] == "pass"
