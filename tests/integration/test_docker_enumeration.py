"""``portbench enumerate`` inside a cell's container: the walker sees the image's JAX, not
this interpreter's, and the host reads back what it wrote."""

from __future__ import annotations

import json
from pathlib import Path

from integration.conftest import portbench


def test_enumeration_runs_in_the_cells_container(jax_image: str, tmp_path: Path) -> None:
    out = tmp_path / "enum.json"
    done = portbench(
        "enumerate",
        "--framework",
        "jax",
        "--profile",
        "current",
        "--backend",
        "docker",
        "--base",
        "portbench/base:bookworm",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert (doc["kind"], doc["framework"]) == ("enumeration", "jax")
    # Written in the container: its interpreter, not this one.
    assert doc["provenance"]["executable"].startswith("/opt/cell/")
    names = {row["name"] for row in doc["names"]}
    assert {"jax.numpy.add", "jax.jit", "jax.grad"} <= names
