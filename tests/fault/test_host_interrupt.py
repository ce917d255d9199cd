"""Ctrl-C on `portbench bench` leaves a resumable run; --resume finishes it with one record per case."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import (
    ROOT,
    jax_cpu_bench,
    read_jsonl,
    validate,
    wait_for_records,
    with_default_sigint,
)

SLOW_CASES = """
import time
from portbench_runner.api import case

@case("s1")
@case("s2")
@case("s3")
@case("s4")
@case("s5")
def slow(ctx):
    ctx.measure(time.sleep, 0.4, warm=False)
"""


def _project(tmp_path: Path) -> Path:
    """A portbench home whose jax manifest holds slow framework-free cases."""
    home = tmp_path / "home"
    (home / "manifests" / "jax" / "cases").mkdir(parents=True)
    (home / "images").mkdir()
    (home / "runners").symlink_to(ROOT / "runners")
    (home / "images" / "accelerators.toml").write_text(
        (ROOT / "images" / "accelerators.toml").read_text()
    )
    (home / "manifests" / "jax" / "cases" / "slow.py").write_text(SLOW_CASES)
    (home / "manifests" / "jax" / "manifest.toml").write_text(
        'schema = 1\nframework = "jax"\n[[function]]\nfunction = "demo.slow"\n'
        'study_test_file = "slow_test.py"\nstratum = "1"\ncase_file = "cases/slow.py"\n'
    )
    return home


def _bench(home: Path, *extra: str) -> subprocess.Popen[str]:
    cmd = jax_cpu_bench("--profile", "host", *extra)
    env = {**os.environ, "PORTBENCH_HOME": str(home)}
    return subprocess.Popen(
        with_default_sigint(cmd),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_ctrl_c_then_resume(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    home = _project(tmp_path)
    run_dir = tmp_path / "run"
    results = run_dir / "jax-cpu-host" / "results.jsonl"
    proc = _bench(home, "--run-dir", str(run_dir))
    wait_for_records(results, 2, proc)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "stopped by SIGINT (Ctrl-C): " in stderr
    assert f"resume with portbench bench --resume {run_dir}" in stderr
    assert "Traceback" not in stderr
    assert len(read_jsonl(results)) < 5

    resumed = _bench(home, "--resume", str(run_dir))
    _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    records = read_jsonl(results)
    assert sorted(r["case_name"] for r in records) == ["s1", "s2", "s3", "s4", "s5"]
    for record in records:
        validate(record, "record")
