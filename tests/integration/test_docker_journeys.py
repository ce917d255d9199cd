"""README's journeys with the real engine: a CLI killed mid-cell, Ctrl-C through the process
group, relative run and resume paths, a named base that is not there, a wheel no index
serves. Each ends with nothing left running and nothing lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, wait_for_records, with_default_sigint

from integration.conftest import portbench

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SLOW = """
import time
from portbench_runner.api import case

{decorators}
def slow(ctx):
    ctx.measure(time.sleep, 0.5, warm=False)
"""
CASES = 16


def _home(root: Path) -> Path:
    home = root / "home"
    (home / "manifests" / "jax" / "cases").mkdir(parents=True)
    for name in ("runners", "paper", "images"):
        (home / name).symlink_to(ROOT / name)
    decorators = "\n".join(f'@case("s{i:02d}")' for i in range(CASES))
    (home / "manifests" / "jax" / "cases" / "slow.py").write_text(
        SLOW.format(decorators=decorators)
    )
    (home / "manifests" / "jax" / "manifest.toml").write_text(
        'schema = 1\nframework = "jax"\n[[function]]\nfunction = "demo.slow"\n'
        'study_test_file = "slow_test.py"\nstratum = "1"\ncase_file = "cases/slow.py"\n'
    )
    return home


def _env(home: Path) -> dict[str, str]:
    src = str(ROOT / "src")
    return {**os.environ, "PORTBENCH_HOME": str(home), "PYTHONPATH": src}


def _start(home: Path, cwd: Path, *args: str, group: bool = False) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "portbench.cli", *args]
    return subprocess.Popen(
        with_default_sigint(argv),
        cwd=cwd,
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=group,
    )


def _run(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "portbench.cli", *args],
        cwd=cwd,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _containers(client: Any, cell_dir: Path) -> list[Any]:
    label = f"org.portbench.run-dir={cell_dir.resolve()}"
    return list(client.containers.list(all=True, filters={"label": label}))


def _gone_within(client: Any, cell_dir: Path, seconds: float) -> float:
    started = time.monotonic()
    while _containers(client, cell_dir):
        if time.monotonic() - started > seconds:
            raise AssertionError(f"a container of {cell_dir} still exists after {seconds} s")
        time.sleep(0.2)
    return time.monotonic() - started


BENCH = ("bench", "--framework", "jax", "--accelerator", "cpu", "--backend", "docker")


def test_a_killed_cli_stops_its_container_and_the_next_command_resumes(
    jax_image: str, docker_client: Any, tmp_path: Path
) -> None:
    home = _home(tmp_path)
    cell = tmp_path / "results" / "r1" / "jax-cpu-current"
    # A relative --run-dir: the engine must get absolute paths for its bind mounts.
    proc = _start(home, tmp_path, *BENCH, "--run-dir", "results/r1")
    wait_for_records(cell / "results.jsonl", 2, proc)
    assert _containers(docker_client, cell)
    proc.kill()  # SIGKILL: the CLI can print nothing and end nothing
    proc.communicate(timeout=30)
    # The container saw its host go (its stdin closed), ended the cell and removed itself.
    _gone_within(docker_client, cell, 30)
    kept = (cell / "results.jsonl").read_text().splitlines()
    assert 2 <= len(kept) < CASES
    # bench on the same run: one sentence saying how to resume.
    again = _run(home, tmp_path, *BENCH, "--run-dir", "results/r1")
    assert again.returncode != 0 and "--resume results/r1" in again.stderr
    assert "Traceback" not in again.stderr
    # The relative resume as README writes it; the dead run's lock is taken over.
    resumed = _run(home, tmp_path, "bench", "--resume", "results/r1")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    lines = (cell / "results.jsonl").read_text().splitlines()
    assert lines[: len(kept)] == kept and len(lines) == CASES
    assert len({json.loads(line)["case"] for line in lines}) == CASES
    assert f"{CASES}/{CASES} cases" in resumed.stdout
    assert f"{len(kept)} recorded before" in resumed.stdout
    assert not (cell / ".lock").exists()
    assert not _containers(docker_client, cell)


def test_ctrl_c_through_the_process_group_says_sigint_and_the_resume_command(
    jax_image: str, docker_client: Any, tmp_path: Path
) -> None:
    home = _home(tmp_path)
    cell = tmp_path / "results" / "r2" / "jax-cpu-current"
    proc = _start(home, tmp_path, *BENCH, "--run-dir", "results/r2", group=True)
    wait_for_records(cell / "results.jsonl", 2, proc)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "stopped by SIGINT (Ctrl-C)" in err
    assert "resume with portbench bench --resume results/r2" in err
    assert "signal 15" not in err and "Traceback" not in err
    ended = json.loads((cell / "sessions.jsonl").read_text().splitlines()[-1])
    assert ended["status"] == "interrupted" and "signal 2" in ended["reason"]
    assert not _containers(docker_client, cell)
    assert not (cell / ".lock").exists()


def test_a_named_base_that_is_not_here_is_refused(docker_client: Any) -> None:
    done = portbench(
        "images",
        "build",
        "--framework",
        "jax",
        "--accelerator",
        "cpu",
        "--base",
        "portbench-scratch/nosuch-base:bookworm",
        timeout=300,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert (
        len(lines) == 1 and "--base portbench-scratch/nosuch-base:bookworm is not here" in lines[0]
    )
    assert "using" not in done.stdout  # never silently replaced by the local base


def test_a_wheel_no_index_serves_is_its_sentence_without_the_build_log(
    docker_client: Any, tmp_path: Path
) -> None:
    try:
        docker_client.images.get("portbench/base:bullseye")
    except Exception:
        pytest.skip("no portbench/base:bullseye here (nox -s base_images makes it)")
    done = portbench(
        "bench",
        "--framework",
        "jax",
        "--accelerator",
        "cpu",
        "--profile",
        "paper",
        "--backend",
        "docker",
        "--run-dir",
        str(tmp_path / "run"),
        timeout=900,
    )
    assert done.returncode != 0
    assert "jaxlib==0.4.7 is served by no index" in done.stderr
    assert "--profile paper-nearest" in done.stderr
    assert "Step 1/" not in done.stderr and "ERROR: Could not find" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
