"""``matrix --engine ray`` on a real local cluster: same outcomes, node death, unreachable cells."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import read_jsonl

from distributed.conftest import NODES
from portbench.cluster.local import ADDRESS, LocalCluster, NodeSpec
from portbench.cluster.node import node_pids
from portbench.results import read_results

pytestmark = pytest.mark.slow

SELECTION = ("--functions", "jax.numpy.add", "jax.numpy.all", "tf.cast", "tf.fill")
RAY = ("matrix", "--engine", "ray", "--address", ADDRESS)


def outcomes(cell_dir: Path) -> dict[str, tuple[str, str | None]]:
    read = read_results(cell_dir / "results.jsonl")
    assert read.skipped == 0
    return {
        r.case: (r.outcome.value, r.category.value if r.category else None) for r in read.records
    }


def matrix_rows(run_dir: Path, name: str = "matrix.json") -> dict[str, dict[str, Any]]:
    return {row["cell"]: row for row in json.loads((run_dir / name).read_text())["cells"]}


def test_the_nodes_advertise_their_engines_and_profiles(cluster: LocalCluster) -> None:
    done = cluster.portbench(
        "node",
        "status",
        "--name",
        "n1",
        "--work-dir",
        str(cluster.work_dir("n1")),
        "--address",
        ADDRESS,
    )
    assert done.returncode == 0, done.stderr
    for spec in NODES:
        assert spec.name in done.stdout
    assert "engine:docker" in done.stdout and "engine:venv" in done.stdout
    assert "n1: 0 process" not in done.stdout and "running" in done.stdout


def test_cells_across_the_nodes_record_what_a_local_run_records(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    local_dir, ray_dir = tmp_path / "local", tmp_path / "ray"
    common = ("--profile", "host", "--frameworks", "jax", "tensorflow", *SELECTION)
    local = cluster.portbench("matrix", *common, "--run-dir", str(local_dir))
    assert local.returncode == 0, local.stderr
    remote = cluster.portbench(*RAY, *common, "--run-dir", str(ray_dir), "--label", "on nodes")
    assert remote.returncode == 0, remote.stdout + remote.stderr
    assert "Traceback" not in remote.stderr
    served_by = set()
    for cell in ("jax-cpu-host", "tensorflow-cpu-host"):
        expected = outcomes(local_dir / cell)
        assert expected and outcomes(ray_dir / cell) == expected
        # The head sent the plan it compiled: every option reached the node, the label too.
        assert json.loads((ray_dir / cell / "plan.json").read_text())["label"] == "on nodes"
        env = json.loads((ray_dir / cell / "env.json").read_text())
        assert env["node"]["name"] in {"n1", "n2", "n3"} and env["node"]["ray_node_id"]
        served_by.add(env["node"]["name"])
    rows = matrix_rows(ray_dir)
    for cell in ("jax/cpu/host", "tensorflow/cpu/host"):
        assert rows[cell]["status"] == "complete" and rows[cell]["node"] in served_by
        figures = rows[cell]["dispatch"]
        assert figures["submit_to_task_s"] >= 0 and figures["return_s"] >= 0
    assert len(served_by) == 2  # one slot per node: two cells at once go to two nodes
    assert list((ray_dir / ".incoming").iterdir()) == []


def _docker_image_here() -> None:
    """Skip, saying why, without an engine or a jax cpu image of profile current (reused, or
    rebuilt from its cached layers when its content tag moved)."""
    try:
        from portbench.images.build import docker_client

        tags = [t for i in docker_client().images.list(name="portbench/jax-cpu") for t in i.tags]
    except Exception as exc:
        pytest.skip(f"no Docker engine here ({exc})")
    if not any(":current-" in tag for tag in tags):
        pytest.skip("no jax cpu current image here; build it: nox -s 'image(jax, cpu)'")


def test_a_docker_cell_goes_only_to_the_node_with_docker(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    _docker_image_here()
    run_dir = tmp_path / "run"
    done = cluster.portbench(
        *RAY,
        "--profile",
        "current",
        "--backend",
        "docker",
        "--frameworks",
        "jax",
        "--functions",
        "jax.numpy.add",
        "--run-dir",
        str(run_dir),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    env = json.loads((run_dir / "jax-cpu-current" / "env.json").read_text())
    assert env["node"]["name"] == "n1" and "engine:docker" in env["node"]["resources"]
    plan = json.loads((run_dir / "jax-cpu-current" / "plan.json").read_text())
    assert plan["backend"] == "docker" and plan["image"]["id"].startswith("sha256:")


def test_a_cell_no_node_can_serve_is_listed_unreachable(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    started = time.monotonic()
    done = cluster.portbench(
        *RAY,
        "--profile",
        "host",
        "--frameworks",
        "jax",
        "--functions",
        "jax.numpy.add",
        "--accelerators",
        "cpu",
        "gpu-t4",
        "--unreachable-after",
        "3",
        "--run-dir",
        str(run_dir),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = matrix_rows(run_dir)
    assert rows["jax/gpu-t4/host"]["status"] == "unreachable"
    assert "accel:gpu-t4" in rows["jax/gpu-t4/host"]["reason"]
    assert rows["jax/cpu/host"]["status"] == "complete"
    assert rows["jax/tpu/host"]["status"] == "unreachable"  # not asked for, and not advertised
    assert time.monotonic() - started < 120
    assert not (run_dir / "jax-gpu-t4-host").exists()


def _cell_running_on(cluster: LocalCluster, run_dir: Path, cell: str, records: int) -> str:
    """The node whose work directory holds ``cell`` of ``run_dir`` with ``records`` records."""
    deadline = time.monotonic() + 180
    pattern = f"cells/{run_dir.name}-*/{cell}/results.jsonl"
    while time.monotonic() < deadline:
        for spec in NODES:
            for results in cluster.work_dir(spec.name).glob(pattern):
                try:
                    if len(results.read_text().splitlines()) >= records:
                        return spec.name
                except OSError:
                    continue
        time.sleep(0.1)
    raise AssertionError(f"{cell} never reached {records} records on any node")


def test_a_node_killed_mid_cell_and_the_matrix_still_completes(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    run_dir = tmp_path / "killed"
    head = cluster.popen(
        *RAY, "--profile", "host", "--frameworks", "torch", "--run-dir", str(run_dir)
    )
    victim = _cell_running_on(cluster, run_dir, "torch-cpu-host", 2)
    pids = node_pids(victim)
    assert pids
    for pid in pids:  # the machine is gone: raylet, workers, the cell's processes
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        out, err = head.communicate(timeout=300)
        assert head.returncode == 0, out + err
        cell = run_dir / "torch-cpu-host"
        records = read_jsonl(cell / "results.jsonl")
        assert sorted(r["case_name"] for r in records) == [f"s{i}" for i in range(1, 9)]
        env = json.loads((cell / "env.json").read_text())
        assert env["node"]["name"] != victim
        assert matrix_rows(run_dir)["torch/cpu/host"]["attempts"] == 2
        assert "again" in out
    finally:
        cluster.start_node(next(s for s in NODES if s.name == victim))
    # Started again, the node cleared what its dead self left in its work directory.
    assert list(cluster.work_dir(victim).glob("cells/*")) == []


def test_an_interrupted_head_leaves_a_run_that_resume_finishes(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    run_dir = tmp_path / "interrupted"
    head = cluster.popen(
        *RAY, "--profile", "host", "--frameworks", "torch", "--run-dir", str(run_dir)
    )
    _cell_running_on(cluster, run_dir, "torch-cpu-host", 1)
    head.send_signal(signal.SIGINT)
    _, err = head.communicate(timeout=120)
    assert head.returncode == 130, err
    assert f"--resume {run_dir}" in err and "Traceback" not in err
    resumed = cluster.portbench(*RAY[:3], "--address", ADDRESS, "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    records = read_jsonl(run_dir / "torch-cpu-host" / "results.jsonl")
    assert sorted(r["case_name"] for r in records) == [f"s{i}" for i in range(1, 9)]
    assert (run_dir / "matrix-2.json").exists()  # the first session's summary is kept
    _a_cell_landed_in_part_resumes_with_its_records(cluster, run_dir, tmp_path / "part")


def _a_cell_landed_in_part_resumes_with_its_records(
    cluster: LocalCluster, whole: Path, part: Path
) -> None:
    """A run whose torch cell landed with three of its eight records (a node that stopped
    early): --resume sends those three along, and the node runs only the other five."""
    cell = part / "torch-cpu-host"
    cell.mkdir(parents=True)
    shutil.copy(whole / "matrix-request.json", part)
    for name in ("plan.json", "env.json"):
        shutil.copy(whole / "torch-cpu-host" / name, cell)
    kept = (whole / "torch-cpu-host" / "results.jsonl").read_text().splitlines()[:3]
    (cell / "results.jsonl").write_text("".join(line + "\n" for line in kept))
    ended = json.loads((whole / "torch-cpu-host" / "sessions.jsonl").read_text().splitlines()[0])
    (cell / "sessions.jsonl").write_text(json.dumps({**ended, "status": "interrupted"}) + "\n")
    resumed = cluster.portbench(*RAY[:3], "--address", ADDRESS, "--resume", str(part))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    lines = (cell / "results.jsonl").read_text().splitlines()
    assert lines[:3] == kept and len(lines) == 8
    assert len({json.loads(line)["case"] for line in lines}) == 8
    assert "(5 new)" in resumed.stdout


@pytest.mark.docker
def test_a_node_start_removes_containers_a_dead_node_left(cluster: LocalCluster) -> None:
    try:
        from portbench.images.build import docker_client

        client = docker_client()
        client.images.get("portbench/base:bookworm")
    except Exception as exc:
        pytest.skip(f"no Docker engine or base image here ({exc})")
    leftover = client.containers.create(
        "portbench/base:bookworm", ["sleep", "300"], labels={"org.portbench.node": "n4"}
    )
    try:
        cluster.start_node(NodeSpec("n4", ("docker", "host"), ("host",)))
        assert client.containers.list(all=True, filters={"label": "org.portbench.node=n4"}) == []
    finally:
        cluster.portbench("node", "stop", "--name", "n4")
        if client.containers.list(all=True, filters={"id": leftover.id}):
            leftover.remove(force=True)
