"""Nodes that advertise names no ``portbench node start`` would accept, on a real cluster.

Anyone who can join a Ray cluster can start Ray by hand with any resource names. The head
reads a node's name from its ``portbench-node:<name>`` resource; a name holding ``/`` or
``..`` must be checked there and never become a path: the cells such a node serves land
whole, under the name "unknown", and nothing is written outside the run directory.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from distributed.conftest import make_home
from portbench.cluster.local import ADDRESS, LocalCluster, make_cluster
from portbench.cluster.resources import SLOT, node_name_resource

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def head_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("PORTBENCH_REQUIRE_RAY") == "1":
            pytest.fail("Ray is not installed (PORTBENCH_REQUIRE_RAY=1: these tests must run)")
        pytest.skip("Ray is not installed: pip install 'portbench[ray]'")
    root = tmp_path_factory.mktemp("ray-hostile")
    local = make_cluster(root, make_home(root), ())
    try:
        local.start()
        yield local
    finally:
        local.stop(extra=("evil1", "evil2"))


def _start_raw_node(cluster: LocalCluster, tag: str, advertised: str) -> None:
    """``ray start`` by hand, as a hostile machine would: the resources a real node
    advertises, under a name of its own choosing (the process tag stays plain, so
    ``portbench node stop --name TAG`` finds it)."""
    resources = {
        SLOT: 1.0,
        "accel:cpu": 1.0,
        "engine:host": 1.0,
        "profile:host": 1.0,
        node_name_resource(advertised): 1.0,
    }
    argv = [
        sys.executable,
        "-m",
        "ray.scripts.scripts",
        "start",
        "--disable-usage-stats",
        "--address",
        ADDRESS,
        "--resources",
        json.dumps(resources),
        "--node-ip-address",
        "127.0.0.1",
        "--num-cpus",
        "1",
        "--temp-dir",
        str(cluster.ray_root / tag),
    ]
    env = {
        **cluster.env,
        "PORTBENCH_NODE_NAME": tag,
        "PORTBENCH_NODE_DIR": str(cluster.work_dir(tag)),
        "PORTBENCH_NODE_ENGINES": "host",
    }
    cluster.work_dir(tag).mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [*cluster.prefix(), *argv], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_node_names_with_slashes_never_become_paths(
    head_only: LocalCluster, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    escape = f"a-x/../../../../../../../../..{outside}/pwned-{secrets.token_hex(3)}"
    _start_raw_node(head_only, "evil1", escape)
    _start_raw_node(head_only, "evil2", "a/b")
    run_dir = tmp_path / "run"
    done = head_only.portbench(
        "matrix",
        "--engine",
        "ray",
        "--address",
        ADDRESS,
        "--profile",
        "host",
        "--frameworks",
        "jax",
        "tensorflow",
        "--functions",
        "jax.numpy.add",
        "tf.cast",
        "--run-dir",
        str(run_dir),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    for cell in ("jax-cpu-host", "tensorflow-cpu-host"):
        lines = (run_dir / cell / "results.jsonl").read_text().splitlines()
        assert lines, f"{cell} landed no records"
        env = json.loads((run_dir / cell / "env.json").read_text())
        # Ray's node id is vouched for by the head; the name it advertised was refused.
        assert env["node"]["name"] == "unknown" and env["node"]["ray_node_id"]
        logs = sorted(p.name for p in (run_dir / cell / "logs").iterdir())
        assert logs and all(name.startswith("node-unknown-") for name in logs), logs
    rows = {r["cell"]: r for r in json.loads((run_dir / "matrix.json").read_text())["cells"]}
    assert rows["jax/cpu/host"]["status"] == rows["tensorflow/cpu/host"]["status"] == "complete"
    assert list(outside.iterdir()) == []
    assert not list(tmp_path.glob("**/pwned-*"))
