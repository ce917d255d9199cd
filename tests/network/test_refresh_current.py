"""Refreshing current against PyPI: a dry run says what would move and writes nothing."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from portbench.images.locks import lock_path

pytestmark = pytest.mark.network


def test_a_dry_run_says_what_would_move_and_writes_nothing(pypi: None) -> None:
    path = lock_path("current", "tensorflow", "cpu")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    command = ["images", "refresh", "--dry-run", "--only", "tensorflow-cpu", "tensorflow-tpu"]
    proc = subprocess.run(
        [sys.executable, "-m", "portbench", *command],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "current/tensorflow-cpu: 2." in proc.stdout
    assert "current/tensorflow-tpu: 2.20.0 kept (written from documented pins" in proc.stdout
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
