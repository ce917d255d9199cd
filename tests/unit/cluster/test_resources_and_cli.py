"""What a node advertises, what a cell asks for, and the cluster commands' one-sentence errors."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from portbench.accelerators import load_accelerators
from portbench.cli import main
from portbench.cluster.node import node_pids, stop_node
from portbench.cluster.resources import (
    SLOT,
    advertised_accelerators,
    cell_resources,
    detect_capabilities,
    serves,
)


def test_a_host_only_node_advertises_cpu_host_and_its_slot() -> None:
    caps = detect_capabilities("n3", load_accelerators(), ["host"])
    resources = caps.resources()
    assert resources[SLOT] == 1.0 and resources["accel:cpu"] == 1.0
    assert resources["engine:host"] == 1.0 and resources["profile:host"] == 1.0
    assert "profile:current" not in resources and "portbench-node:n3" in resources
    needed = cell_resources("cpu", "host", "auto")
    assert serves(resources, needed)
    assert not serves(resources, cell_resources("cpu", "current", "auto"))
    assert not serves(resources, cell_resources("cpu", "host", "docker"))
    assert not serves(resources, cell_resources("gpu-t4", "host", "auto"))


def test_a_profile_the_engines_cannot_run_is_refused() -> None:
    with pytest.raises(Exception, match="cannot run profile current with engine host"):
        detect_capabilities("n3", load_accelerators(), ["host"], ["current"])
    with pytest.raises(Exception, match="not usable"):
        detect_capabilities("bad name!", load_accelerators(), ["host"])


def test_the_default_cells_are_the_most_specific_id_per_node() -> None:
    table = load_accelerators()
    t4 = {"accel:gpu": 1.0, "accel:gpu-t4": 1.0, "accel:cpu": 1.0}
    cpu_only = {"accel:cpu": 1.0}
    assert advertised_accelerators([t4, cpu_only], table) == ["cpu", "gpu-t4"]
    assert advertised_accelerators([], table) == []


def test_stop_ends_exactly_the_processes_of_that_node(tmp_path: Path) -> None:
    env = {**os.environ, "PORTBENCH_NODE_NAME": "unit-node-a"}
    mine = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    other_env = {**os.environ, "PORTBENCH_NODE_NAME": "unit-node-b"}
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=other_env)
    try:
        deadline = time.monotonic() + 10
        while mine.pid not in node_pids("unit-node-a") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert node_pids("unit-node-a") == [mine.pid]
        ended, _ = stop_node("unit-node-a", grace_s=5)
        assert ended == 1 and mine.wait(timeout=10) != 0
        assert other.poll() is None
    finally:
        for proc in (mine, other):
            proc.kill()
            proc.wait()


def _one_sentence(capsys: pytest.CaptureFixture[str], code: int, expected: int, words: str) -> None:
    err = capsys.readouterr().err
    assert code == expected, err
    assert words in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if line.strip()]) == 1


def test_the_ray_engine_without_ray_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    code = main(["matrix", "--engine", "ray", "--frameworks", "jax"])
    _one_sentence(capsys, code, 6, "pip install 'portbench[ray]'")


def test_cluster_options_on_a_local_matrix_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["matrix", "--address", "127.0.0.1:1"])
    _one_sentence(capsys, code, 2, "go with --engine ray")


def test_a_bad_node_name_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["node", "start", "--head", "--name", "no spaces", "--engines", "host", "--dry-run"]
    )
    _one_sentence(capsys, code, 2, "is not usable")


def test_node_start_dry_run_shows_the_resources(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray", reason="ray is not installed (pip install 'portbench[ray]')")
    code = main(
        [
            "node",
            "start",
            "--address",
            "127.0.0.1:6379",
            "--name",
            "n9",
            "--engines",
            "host",
            "--dry-run",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert '"accel:cpu": 1.0' in out and '"profile:host": 1.0' in out and "--address" in out


def test_containers_carry_the_name_of_the_node_that_started_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from portbench.backends.docker_backend import _labels

    monkeypatch.delenv("PORTBENCH_NODE_NAME", raising=False)
    assert "org.portbench.node" not in _labels(tmp_path)
    monkeypatch.setenv("PORTBENCH_NODE_NAME", "n7")
    assert _labels(tmp_path)["org.portbench.node"] == "n7"


def test_an_address_nothing_answers_at_is_one_sentence_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("ray", reason="ray is not installed (pip install 'portbench[ray]')")
    started = time.monotonic()
    code = main(["matrix", "--engine", "ray", "--address", "127.0.0.1:1", "--frameworks", "jax"])
    _one_sentence(capsys, code, 6, "nothing answers at 127.0.0.1:1")
    assert time.monotonic() - started < 30  # Ray's own client would retry for minutes
