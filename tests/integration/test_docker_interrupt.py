"""Ctrl-C on a containerized cell stops the container and leaves a resumable run."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import jax_cpu_bench, read_jsonl, wait_for_records, with_default_sigint

from integration.conftest import docker_bench, project_with_cases

pytestmark = pytest.mark.docker

SLOW = """
import time
from portbench_runner.api import case

@case("s1")
@case("s2")
@case("s3")
@case("s4")
@case("s5")
@case("s6")
def slow(ctx):
    ctx.measure(time.sleep, 1.0, warm=False)
"""


def test_ctrl_c_stops_the_container_and_resume_finishes(
    jax_image: str, tmp_path: Path, docker_client
) -> None:
    home = project_with_cases(tmp_path, "jax", SLOW)
    run_dir = tmp_path / "run"
    results = run_dir / "jax-cpu-current" / "results.jsonl"
    cmd = jax_cpu_bench("--backend", "docker", "--run-dir", str(run_dir))
    proc = subprocess.Popen(
        with_default_sigint(cmd),
        env={**os.environ, "PORTBENCH_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_records(results, 2, proc)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    cell_dir = (run_dir / "jax-cpu-current").resolve()
    label = f"org.portbench.run-dir={cell_dir}"
    assert docker_client.containers.list(all=True, filters={"label": label}) == []
    assert len(read_jsonl(results)) < 6
    resumed = docker_bench(home, run_dir, "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(r["case_name"] for r in read_jsonl(results)) == [
        "s1",
        "s2",
        "s3",
        "s4",
        "s5",
        "s6",
    ]
    statuses = [s["status"] for s in read_jsonl(run_dir / "jax-cpu-current" / "sessions.jsonl")]
    assert statuses == ["interrupted", "complete"]


def test_docker_kill_mid_case_records_the_running_case_and_resume_reruns_it(
    jax_image: str, tmp_path: Path, docker_client
) -> None:
    home = project_with_cases(tmp_path, "jax", SLOW)
    run_dir = tmp_path / "run"
    cell_dir = run_dir / "jax-cpu-current"
    results = cell_dir / "results.jsonl"
    cmd = jax_cpu_bench("--backend", "docker", "--run-dir", str(run_dir))
    proc = subprocess.Popen(
        cmd,
        env={**os.environ, "PORTBENCH_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_records(results, 2, proc)
    label = f"org.portbench.run-dir={cell_dir.resolve()}"
    (container,) = docker_client.containers.list(filters={"label": label})
    container.kill()  # the supervisor is the container's PID 1: it dies with it
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 0 and "Traceback" not in stderr
    records = read_jsonl(results)
    running = records[-1]
    assert running["recorded_by"] == "host" and running["category"] == "crash"
    assert [r["case_name"] for r in records] == ["s1", "s2", running["case_name"]]
    assert f"while {running['case']} ran" in " ".join(stderr.split())
    resumed = docker_bench(home, run_dir, "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stderr
    lines = read_jsonl(results)
    assert len(lines) == 7  # the host's record stays, superseded by the resumed one
    kept = {r["case_name"]: r for r in lines if r.get("recorded_by") != "host"}
    assert sorted(kept) == ["s1", "s2", "s3", "s4", "s5", "s6"]
    assert all(r["outcome"] == "pass" for r in kept.values())
