"""A sweep over a release no index serves: that release is settled as skipped with its one
sentence (no cell, no substitute), and a resumed sweep does not try it again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _sweep(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PORTBENCH_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "portbench", "sweep", *args],
        capture_output=True,
        text=True,
        env={**env, "NO_COLOR": "1", "COLUMNS": "200"},
        check=False,
        timeout=300,
    )


def test_a_release_no_index_serves_is_a_skipped_cell_never_a_substitute(
    pypi: None, home: Path, tmp_path: Path
) -> None:
    run = tmp_path / "sweep"
    # The venv backend: nothing is installed, since the lock is refused first.
    proc = _sweep(home, "--framework", "jax", "--releases", "0.4.7", "--backend", "venv",
                  "--no-timing", "--run-dir", str(run))  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [json.loads(line) for line in (run / "sweep.jsonl").read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["release"] == "jax==0.4.7"
    assert lines[0]["status"] == "skipped"
    assert lines[0]["reason"].startswith("jax==0.4.7 needs jaxlib 0.4.7, which no index serves")
    assert sorted(p.name for p in run.iterdir()) == ["sweep.json", "sweep.jsonl"]
    assert "skipped" in proc.stdout
    again = _sweep(home, "--resume", str(run))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "jax==0.4.7: skipped already" in again.stdout
    assert len((run / "sweep.jsonl").read_text().splitlines()) == 1
