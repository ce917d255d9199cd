"""A real cell in a real container: image reuse, records, and parity with the venv backend."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from conftest import read_jsonl, validate

from integration.conftest import portbench

pytestmark = pytest.mark.docker


def test_unchanged_image_is_reused_not_rebuilt(docker_client: Any, jax_image: str) -> None:
    from portbench.images.build import ensure_image, image_spec

    spec = image_spec("jax", "cpu", "current", base="portbench/base:bookworm")
    again = ensure_image(spec, lambda line: None, client=docker_client)
    assert again.built is False
    assert again.tag == jax_image
    labels = docker_client.images.get(jax_image).labels
    assert labels["org.portbench.profile"] == "current"
    assert labels["org.portbench.lock-sha256"] == spec.lock.sha256


def test_docker_and_venv_cells_agree(jax_image: str, tmp_path: Path) -> None:
    outcomes = {}
    for backend in ("docker", "venv"):
        run_dir = tmp_path / backend
        proc = portbench(
            "bench",
            "--framework",
            "jax",
            "--accelerator",
            "cpu",
            "--profile",
            "current",
            "--backend",
            backend,
            "--functions",
            "jax.numpy.sum",
            "--run-dir",
            str(run_dir),
        )
        assert proc.returncode == 0, proc.stderr + proc.stdout
        cell = run_dir / "jax-cpu-current"
        records = read_jsonl(cell / "results.jsonl")
        for record in records:
            validate(record, "record")
        env = __import__("json").loads((cell / "env.json").read_text())
        validate(env, "env")
        assert env["backend"] == backend
        if backend == "docker":
            assert env["image"]["tag"] == jax_image
            assert env["python"]["executable"].startswith("/opt/cell/")
            assert (cell / "logs" / "container.log").exists()
        # Both backends name the machine, so compare lists a host only when machines differ.
        assert env["host"]["hostname"] == socket.gethostname()
        outcomes[backend] = {r["case"]: r["outcome"] for r in records}
    assert outcomes["docker"] == outcomes["venv"]
    assert set(outcomes["docker"].values()) == {"pass"}
