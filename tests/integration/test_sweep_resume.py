"""A real sweep of two JAX releases in Docker, killed (SIGKILL, the whole process group)
while the second release's cell runs, then resumed: the landed release is not run again,
the second cell finishes with one record per case, and each image is removed once its cell
has landed."""

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
from conftest import read_jsonl

from integration.image_ledger import ImageLedger

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.network]

ROOT = Path(__file__).resolve().parents[2]
# Two releases of the default list's 0.4 series that no other test builds (their images
# are removed by the sweep itself), one function (43 cases) so each cell takes seconds.
RELEASES = ("0.4.20", "0.4.30")


def _sweep(*args: str) -> list[str]:
    return [sys.executable, "-m", "portbench", "sweep", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1", "COLUMNS": "200"}


def _settled(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "sweep.jsonl"
    return read_jsonl(path) if path.exists() else []


def _records(cell_dir: Path) -> int:
    path = cell_dir / "results.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_a_killed_sweep_resumes_without_redoing_a_landed_cell(
    docker_client: Any, bookworm_base: str, image_ledger: ImageLedger, tmp_path: Path
) -> None:
    from docker.errors import ImageNotFound

    run_dir = tmp_path / "sweep"
    first_cell = run_dir / f"jax-cpu-jax-{RELEASES[0]}"
    second_cell = run_dir / f"jax-cpu-jax-{RELEASES[1]}"
    log = (tmp_path / "first.log").open("w")
    proc = subprocess.Popen(
        _sweep("--framework", "jax", "--releases", *RELEASES, "--no-timing",
               "--functions", "jax.numpy.cos", "--backend", "docker", "--run-dir", str(run_dir)),
        cwd=ROOT, env=_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 900
    try:
        # Killed once the first release landed and the second's cell has records, not all.
        while not (_settled(run_dir) and _records(second_cell) >= 1):
            if proc.poll() is not None:
                pytest.fail(
                    f"the sweep ended first: {(tmp_path / 'first.log').read_text()[-2000:]}"
                )
            if time.monotonic() > deadline:
                pytest.fail("the sweep did not reach its second cell in 15 minutes")
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        log.close()
    before = _settled(run_dir)
    assert [(s["release"], s["status"]) for s in before] == [(f"jax=={RELEASES[0]}", "landed")]
    kept = (first_cell / "results.jsonl").read_bytes()
    recorded_when_killed = _records(second_cell)
    assert recorded_when_killed >= 1
    # The killed process was the only writer: its container may still finish its stream,
    # but nothing reaches the cell any more.
    time.sleep(1)

    resumed = subprocess.run(
        _sweep("--resume", str(run_dir)), cwd=ROOT, env=_env(), capture_output=True,
        text=True, timeout=900, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    assert f"jax=={RELEASES[0]}: landed already" in resumed.stdout
    after = _settled(run_dir)
    assert [(s["release"], s["status"]) for s in after] == [
        (f"jax=={release}", "landed") for release in RELEASES
    ]
    # The landed cell was not touched; the second finished what it had not recorded.
    assert (first_cell / "results.jsonl").read_bytes() == kept
    records = read_jsonl(second_cell / "results.jsonl")
    cases = [r["case"] for r in records]
    assert len(cases) == len(set(cases)) == len(read_jsonl(first_cell / "results.jsonl"))
    sessions = read_jsonl(second_cell / "sessions.jsonl")
    assert sessions[-1]["status"] == "complete"
    assert sessions[-1]["skipped_already_recorded"] >= recorded_when_killed
    assert {r["provenance"]["release"] for r in records} == {f"jax=={RELEASES[1]}"}
    assert all(r["timing"]["warm"] is None for r in records)
    # Each release's image was removed once its cell landed (no --keep-images).
    for line in after:
        image = line["image"]
        assert image["removed"] is True and image["python"] == "3.11"
        with pytest.raises(ImageNotFound):
            docker_client.images.get(image["tag"])
    plan = json.loads((run_dir / "sweep.json").read_text())
    assert plan["releases"] == list(RELEASES) and plan["timing"] is False
