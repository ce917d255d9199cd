""".ci/run fails, in one sentence, when its Docker engine does not come up (never a green skip).

The script runs with fake ``docker``, ``dockerd``, ``apt-get``, ``nox``, ``python3`` and
``sleep`` first on PATH: nothing is installed, started or waited for.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / ".ci" / "run"


def _fake_bin(folder: Path, engine_up: bool, apt_ok: bool = True) -> Path:
    folder.mkdir()
    log = folder / "calls.log"
    fakes = {
        "python3": "exit 0",
        "nox": f'echo "nox $* REQUIRE=${{PORTBENCH_REQUIRE_DOCKER:-}}" >> "{log}"',
        "docker": "exit 0" if engine_up else "exit 1",
        "apt-get": "exit 0" if apt_ok else "exit 100",
        "dockerd": f'echo "dockerd $*" >> "{log}"',
        "sleep": "exit 0",
    }
    for name, body in fakes.items():
        path = folder / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return log


def _run_ci(tmp_path: Path, engine_up: bool, apt_ok: bool = True) -> tuple[int, str, str]:
    log = _fake_bin(tmp_path / "bin", engine_up, apt_ok)
    env = {
        "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin",
        "TMPDIR": str(tmp_path),  # dockerd's log goes here, not to the machine's /tmp
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    calls = log.read_text() if log.exists() else ""
    return proc.returncode, proc.stderr, calls


@pytest.mark.skipif(os.name != "posix", reason=".ci/run is a bash script")
def test_no_engine_fails_the_run_before_the_tests(tmp_path: Path) -> None:
    code, stderr, calls = _run_ci(tmp_path, engine_up=False)
    assert code != 0
    (sentence,) = [line for line in stderr.splitlines() if line.strip()]
    assert sentence.startswith("CI failed: no Docker engine came up")
    assert str(tmp_path / "dockerd.log") in sentence
    # It did try to start one (in the background: its line may come a moment later).
    deadline = time.monotonic() + 30
    while "dockerd --iptables=false" not in calls and time.monotonic() < deadline:
        time.sleep(0.05)
        calls = (tmp_path / "bin" / "calls.log").read_text()
    assert "dockerd --iptables=false" in calls
    assert "nox -s tests" not in calls and "nox -s lint" not in calls


@pytest.mark.skipif(os.name != "posix", reason=".ci/run is a bash script")
def test_an_engine_that_cannot_be_installed_fails_the_run(tmp_path: Path) -> None:
    code, stderr, calls = _run_ci(tmp_path, engine_up=False, apt_ok=False)
    assert code != 0
    assert "CI failed: docker.io and debootstrap could not be installed" in stderr
    assert "nox -s tests" not in calls


@pytest.mark.skipif(os.name != "posix", reason=".ci/run is a bash script")
def test_with_an_engine_the_docker_tests_are_required(tmp_path: Path) -> None:
    code, stderr, calls = _run_ci(tmp_path, engine_up=True)
    assert code == 0, stderr
    assert "dockerd" not in calls  # the running engine is used as it is
    # The tests run told that a missing engine or base image is a failure, not a skip.
    assert "nox -s tests REQUIRE=1" in calls
