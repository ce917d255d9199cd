"""A real cell per framework (one function, host backend): records, env and sessions validate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import read_jsonl, validate

from portbench.manifest import load_manifest

IMPORT_NAMES = {"torch": "torch", "tensorflow": "tensorflow", "jax": "jax"}


@pytest.mark.parametrize("framework", ["jax", "torch", "tensorflow"])
def test_real_cell_output_validates_against_the_schemas(framework: str, tmp_path: Path) -> None:
    pytest.importorskip(IMPORT_NAMES[framework])
    manifest = load_manifest(framework)
    entry = min(manifest.functions, key=lambda e: len(e.cases))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "portbench.cli",
            "bench",
            "--framework",
            framework,
            "--accelerator",
            "cpu",
            "--profile",
            "host",
            "--functions",
            entry.function,
            "--run-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    cell = tmp_path / f"{framework}-cpu-host"
    records = read_jsonl(cell / "results.jsonl")
    assert {r["case"] for r in records} >= {entry.case_id(c) for c in entry.cases}
    for record in records:
        validate(record, "record")
        assert record["cell"] == f"{framework}/cpu/host"
        assert record["case_file_sha256"] == entry.case_file_sha256
    env = json.loads((cell / "env.json").read_text())
    validate(env, "env")
    assert env["framework_version"] == env["packages"].get(framework) or framework == "tensorflow"
    for session in read_jsonl(cell / "sessions.jsonl"):
        validate(session, "session")
