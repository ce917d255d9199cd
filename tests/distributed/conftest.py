"""A real three-node Ray cluster for the tests of ``matrix --engine ray`` (module-scoped).

Skipped, saying why, where Ray is not installed; with ``PORTBENCH_REQUIRE_RAY=1`` (CI) a
missing Ray is a failure instead, so a green CI means these tests ran.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

from portbench.cluster.local import LocalCluster, NodeSpec, make_cluster

#: The three nodes that serve cells: docker, venv and plain host, all able to run `host`.
NODES = (
    NodeSpec("n1", ("docker", "host"), ("current", "host")),
    NodeSpec("n2", ("venv", "host"), ("current", "host")),
    NodeSpec("n3", ("host",), ("host",)),
)

SLOW = """
import time
from portbench_runner.api import case

@case("s1")
@case("s2")
@case("s3")
@case("s4")
@case("s5")
@case("s6")
@case("s7")
@case("s8")
def slow(ctx):
    ctx.measure(time.sleep, 1.0, warm=False)
"""


def make_home(root: Path) -> Path:
    """A portbench home: the real runner, images and the JAX and TensorFlow manifests
    (copied, so a container sees them), and a torch manifest of eight one-second cases
    (slow enough to kill a node in the middle of its cell)."""
    home = root / "home"
    (home / "manifests").mkdir(parents=True)
    for name in ("runners", "images", "paper"):
        (home / name).symlink_to(ROOT / name)
    for framework in ("jax", "tensorflow"):
        shutil.copytree(ROOT / "manifests" / framework, home / "manifests" / framework)
    torch = home / "manifests" / "torch"
    (torch / "cases").mkdir(parents=True)
    (torch / "cases" / "probe.py").write_text(SLOW)
    (torch / "manifest.toml").write_text(
        'schema = 1\nframework = "torch"\n[[function]]\nfunction = "probe.slow"\n'
        'study_test_file = "probe_test.py"\nstratum = "1"\ncase_file = "cases/probe.py"\n'
    )
    return home


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("PORTBENCH_REQUIRE_RAY") == "1":
            pytest.fail("Ray is not installed (PORTBENCH_REQUIRE_RAY=1: these tests must run)")
        pytest.skip("Ray is not installed: pip install 'portbench[ray]'")
    root = tmp_path_factory.mktemp("ray")
    local = make_cluster(root, make_home(root), NODES)
    try:
        local.start()
        yield local
    finally:
        local.stop(extra=("n4",))
