"""What sending cells to a Ray cluster costs: dispatch overhead per cell, and a three-node
matrix's wall time beside a local matrix of the same cells.

    python benchmarks/cluster_dispatch.py [--rounds N] [--json OUT]
    python benchmarks/run.py --only cluster

It starts a real local cluster (a head that serves no cells and three host-engine nodes,
in a network namespace of its own where one can be made) and runs:

- ``--rounds`` one-cell matrices (``jax.numpy.add``, profile ``host``), one after another,
  reading each cell's ``dispatch`` figures from ``matrix.json``: submit to task start (Ray
  placing the task and starting a worker), task start to cell start (the node's setup), and
  results return (cell end on the node to the archive checked and landed on the head);
- one three-cell matrix (jax, torch, tensorflow; two functions each) locally and on the
  cluster, wall time of each, from ``matrix.json`` and of the whole command.

The nodes share this machine's cores, so the cluster's wall time is overhead (and
contention), not scaling; the figure is labelled so.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from portbench.cluster.local import ADDRESS, NodeSpec, make_cluster  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Row  # noqa: E402

NODES = tuple(NodeSpec(f"b{i}", ("host",), ("host",)) for i in (1, 2, 3))
ONE = ("--profile", "host", "--frameworks", "jax", "--functions", "jax.numpy.add")
THREE = (
    "--profile",
    "host",
    "--frameworks",
    "jax",
    "torch",
    "tensorflow",
    "--functions",
    "jax.numpy.add",
    "jax.numpy.all",
    "torch.cat",
    "torch.argsort",
    "tf.cast",
    "tf.fill",
)


def _matrix(cluster: Any, run_dir: Path, *args: str) -> tuple[float, dict[str, Any]]:
    """(wall seconds of the command, its matrix.json); raises if it did not complete."""
    started = time.monotonic()
    done = cluster.portbench("matrix", *args, "--run-dir", str(run_dir))
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"matrix {' '.join(args)} ended {done.returncode}: {done.stderr[-800:]}")
    document: dict[str, Any] = json.loads((run_dir / "matrix.json").read_text())
    return wall, document


def measure(rounds: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="pbc-"))
    cluster = make_cluster(root, ROOT, NODES)
    ray = ("--engine", "ray", "--address", ADDRESS)
    try:
        started = time.monotonic()
        cluster.start()
        up_s = time.monotonic() - started
        dispatch = []
        for index in range(rounds):
            _, document = _matrix(cluster, root / f"one-{index}", *ray, *ONE)
            dispatch.append(document["cells"][0]["dispatch"])
        local_wall, local_doc = _matrix(cluster, root / "three-local", *THREE)
        ray_wall, ray_doc = _matrix(cluster, root / "three-ray", *ray, *THREE)
    finally:
        cluster.stop()
    return {
        "isolated": cluster.isolated,
        "cluster_up_s": up_s,
        "dispatch": dispatch,
        "three_local": {"command_s": local_wall, "matrix_s": local_doc["wall_s"]},
        "three_ray": {
            "command_s": ray_wall,
            "matrix_s": ray_doc["wall_s"],
            "nodes": sorted({c.get("node") for c in ray_doc["cells"] if c.get("node")}),
        },
    }


def rows(result: dict[str, Any]) -> list[Row]:
    out = [Row("cluster", "start head + 3 nodes (node start x4)", result["cluster_up_s"], "s")]
    n = len(result["dispatch"])
    for key, label in (
        ("submit_to_task_s", "submit -> task start on a node"),
        ("task_to_cell_s", "task start -> cell start (node setup)"),
        ("return_s", "cell end -> landed on the head (pack, send, check, write)"),
        ("archive_bytes", "archive size"),
    ):
        values = [d[key] for d in result["dispatch"] if key in d]
        unit = "B" if key == "archive_bytes" else "s"
        note = f"median of {n} one-cell matrices; max {max(values):.4g}"
        out.append(Row("cluster", label, statistics.median(values), unit, note=note))
    local, ray = result["three_local"], result["three_ray"]
    note = "3 nodes share 2 cores: overhead, not scaling"
    out.append(Row("cluster", "3-cell matrix, local (matrix.json)", local["matrix_s"], "s"))
    out.append(
        Row(
            "cluster",
            "3-cell matrix, 3 nodes (matrix.json)",
            ray["matrix_s"],
            "s",
            reference=local["matrix_s"],
            ratio=ray["matrix_s"] / local["matrix_s"],
            note=f"{note}; nodes used: {', '.join(ray['nodes'])}",
        )
    )
    out.append(
        Row(
            "cluster",
            "3-cell matrix, 3 nodes (whole command)",
            ray["command_s"],
            "s",
            reference=local["command_s"],
            ratio=ray["command_s"] / local["command_s"],
            note="with Ray's connect and shutdown",
        )
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.rounds)
    for row in rows(result):
        print(f"{row.item:60} {row.value:10.4g} {row.unit:3} {row.note}")
    if args.json:
        args.json.write_text(json.dumps({"schema": 1, "kind": "cluster", **result}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
