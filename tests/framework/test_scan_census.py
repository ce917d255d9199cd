"""Operator-level verdicts from a real census cell: a project's tf.nn.relu and tf.linalg.matmul
reach the census's Relu and MatMul through the committed TensorFlow API map."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from portbench.cli import main

pytestmark = [pytest.mark.framework, pytest.mark.slow]

PROJECT = """
import tensorflow as tf


def layer(x, w):
    return tf.nn.relu(tf.linalg.matmul(x, w))
"""


def test_operator_level_verdicts_from_a_census(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tensorflow")
    runs = tmp_path / "runs"
    command = [sys.executable, "-m", "portbench.cli", "census", "--framework", "tensorflow"]
    command += ["--accelerator", "cpu", "--profile", "host", "--no-timing"]
    command += ["--run-dir", str(runs), "--ops", "Relu", "MatMul"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    project = tmp_path / "proj"
    project.mkdir()
    (project / "model.py").write_text(PROJECT.lstrip(), encoding="utf-8")
    code = main(["scan", str(project), "--runs", str(runs), "--format", "json", "--jobs", "1"])
    report = report_first = json.loads(capsys.readouterr().out)
    assert code == 0
    verdicts = {a["api"]: a["verdicts"]["cpu"] for a in report["apis"]}
    relu, matmul = verdicts["tensorflow.nn.relu"], verdicts["tensorflow.linalg.matmul"]
    for verdict in (relu, matmul):
        assert verdict["level"] == "operator"
        assert verdict["kind"] == "observed"
        assert "traced" in verdict["detail"]
    # The census records Relu's integer kernels the signature refuses, and MatMul's uint8
    # signature without a CPU kernel (docs/census.md): both fail in some dtypes.
    assert matmul["status"] == "fails"
    assert any(item["case"].startswith("MatMul:") for item in matmul["items"])
    # Restricted to float32: Relu ran and works; MatMul's float32 case is a skip (the census's
    # generated (2, 3) inputs do not suit a matrix product), which is no evidence either way.
    code = main(
        [
            "scan",
            str(project),
            "--runs",
            str(runs),
            "--format",
            "json",
            "--jobs",
            "1",
            "--dtypes",
            "float32",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    verdicts = {a["api"]: a["verdicts"]["cpu"] for a in report["apis"]}
    assert verdicts["tensorflow.nn.relu"]["status"] == "works"
    assert verdicts["tensorflow.linalg.matmul"]["status"] == "untested"
    # The census cell through a store: it comes back whole (its pairs are reached through
    # operators, not names) and gives the same verdicts.
    store = tmp_path / "store.duckdb"
    assert main(["ingest", "--store", str(store), "--jobs", "1", str(runs)]) == 0
    capsys.readouterr()
    code = main(["scan", str(project), "--store", str(store), "--format", "json", "--jobs", "1"])
    stored = json.loads(capsys.readouterr().out)
    assert code == 0
    assert _cpu(stored) == _cpu(report_first)
    assert _cpu(stored)["tensorflow.linalg.matmul"]["status"] == "fails"


def _cpu(report: dict[str, Any]) -> dict[str, Any]:
    """Each API's CPU verdict, its sources counted (a store names run/cell, not a path)."""
    return {
        a["api"]: {**a["verdicts"]["cpu"], "sources": len(a["verdicts"]["cpu"]["sources"])}
        for a in report["apis"]
    }
