"""SkyPilot task files: one per accelerator, checked against SkyPilot's own task schema.

The schema tests need SkyPilot (`nox -s cloud_schema` installs it); where it is missing
they skip, saying so. Nothing here launches anything: no cloud is reachable from a test.
"""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from portbench.accelerators import get_accelerator
from portbench.cli import main
from portbench.cluster.skypilot import RenderRequest, render_tasks, task_document, to_yaml
from portbench.errors import UsageError

JOIN = RenderRequest(
    mode="join",
    profile="current",
    frameworks=("jax", "torch"),
    repo="https://example.org/portbench.git",
    ref="main",
    ray_version="2.0.0",
    head="10.0.0.2:6379",
)
BENCH = RenderRequest(
    mode="bench",
    profile="paper",
    frameworks=("torch",),
    repo="https://example.org/portbench.git",
    ref="v1",
    ray_version="2.0.0",
    cloud="gcp",
    bucket="my-results",
)
IDS = (
    "cpu",
    "gpu-t4",
    "gpu-a100",
    "gpu-h100",
    "rocm-mi300x",
    "tpu-v3",
    "tpu-v4",
    "tpu-v5e",
    "tpu-v6e",
)
#: SkyPilot's catalog of accelerator names (tests/data/skypilot/README.md says whence).
CATALOG = Path(__file__).resolve().parents[2] / "data" / "skypilot" / "accelerators.csv"


def test_each_accelerator_gets_the_skypilot_name_it_maps_to() -> None:
    names = {a: task_document(get_accelerator(a), JOIN)["resources"] for a in IDS}
    assert names["gpu-t4"]["accelerators"] == "T4:1"
    assert names["gpu-h100"]["accelerators"] == "H100:1"
    assert names["tpu-v3"]["accelerators"] == "tpu-v3-8"
    assert names["tpu-v3"]["accelerator_args"] == {"runtime_version": "tpu-vm-base"}
    assert "accelerators" not in names["cpu"] and names["cpu"]["cpus"] == "8+"
    assert names["rocm-mi300x"]["accelerators"] == "MI300X:1"
    # Google's TPU software versions: v5e and v6e need their own (tpu-vm-base predates them).
    assert names["tpu-v5e"] == {
        "accelerators": "tpu-v5litepod-8",
        "accelerator_args": {"runtime_version": "v2-alpha-tpuv5-lite"},
    }
    assert names["tpu-v6e"]["accelerator_args"] == {"runtime_version": "v2-alpha-tpuv6e"}


def test_the_yaml_reads_back_as_the_task() -> None:
    for request in (JOIN, BENCH):
        task = task_document(get_accelerator("gpu-t4"), request)
        assert yaml.safe_load(to_yaml(task)) == task
    bench = task_document(get_accelerator("gpu-t4"), BENCH)
    assert bench["file_mounts"] == {"/results": {"name": "my-results", "mode": "MOUNT"}}
    assert "--run-dir /results/gpu-t4-$SKYPILOT_TASK_ID" in bench["run"]
    assert "~" not in bench["setup"].replace("~/.local", "")  # quoted tildes stay tildes
    join = task_document(get_accelerator("tpu-v3"), JOIN)
    assert "node start --address $PORTBENCH_HEAD" in join["run"]
    assert join["envs"]["PORTBENCH_RAY_VERSION"] == "2.0.0"


@pytest.mark.parametrize("request_", [JOIN, BENCH], ids=["join", "bench"])
def test_the_scripts_are_valid_bash(request_: RenderRequest) -> None:
    for ident in IDS:
        task = task_document(get_accelerator(ident), request_)
        for script in (task["setup"], task["run"]):
            checked = subprocess.run(
                ["bash", "-n"], input=script, text=True, capture_output=True, check=False
            )
            assert checked.returncode == 0, checked.stderr


def test_generic_ids_and_a_join_without_head_are_refused() -> None:
    with pytest.raises(UsageError, match="names no model"):
        task_document(get_accelerator("gpu"), JOIN)
    with pytest.raises(UsageError, match="has no machine in SkyPilot's catalog"):
        task_document(get_accelerator("rocm-mi250"), JOIN)
    with pytest.raises(UsageError, match="a Mac's GPU, which SkyPilot does not provision"):
        task_document(get_accelerator("mps"), JOIN)
    with pytest.raises(UsageError, match="needs --head"):
        task_document(get_accelerator("cpu"), RenderRequest(**{**JOIN.__dict__, "head": None}))


def _sky_validate(task: dict[str, Any]) -> None:
    """SkyPilot's own reading of a task file: its task and resources schemas, then the Task
    and Resources it builds (offline: no cloud, no catalog is asked)."""
    sky = pytest.importorskip(
        "sky", reason="SkyPilot is not installed (nox -s cloud_schema installs it)"
    )
    built = sky.Task.from_yaml_config(copy.deepcopy(task))  # it pops what it reads
    assert built.name == task["name"] and built.run == task["run"]
    (resources,) = built.resources
    if "accelerators" in task["resources"]:
        model, count = [*task["resources"]["accelerators"].split(":"), "1"][:2]
        assert resources.accelerators == {model: int(count)}


@pytest.mark.parametrize("request_", [JOIN, BENCH], ids=["join", "bench"])
def test_rendered_files_pass_skypilots_task_schema(tmp_path: Path, request_: RenderRequest) -> None:
    paths = render_tasks([get_accelerator(a) for a in IDS], request_, tmp_path)
    assert [p.name for p in paths] == [f"portbench-{a}.yaml" for a in IDS]
    for path in paths:
        _sky_validate(yaml.safe_load(path.read_text()))


def test_skypilots_schema_catches_a_broken_task() -> None:
    task = task_document(get_accelerator("gpu-t4"), JOIN)
    task["resources"]["acclerators"] = "T4:1"  # a typo SkyPilot must refuse
    with pytest.raises(ValueError, match="did you mean 'accelerators'"):
        _sky_validate(task)


def test_cloud_render_command_writes_the_files(tmp_path: Path) -> None:
    code = main(
        [
            "cloud",
            "render",
            "--accelerators",
            "gpu-t4",
            "tpu-v2",
            "--head",
            "10.0.0.2:6379",
            "--repo",
            "https://example.org/portbench.git",
            "--ray-version",
            "2.0.0",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "portbench-gpu-t4.yaml",
        "portbench-tpu-v2.yaml",
    ]


CATALOG_CHECK = """
import json, sys
from sky import catalog
from sky.catalog import common
from sky.skylet import constants
from sky.utils import accelerator_registry
names = json.loads(sys.argv[1])
rows = common.read_catalog("common/accelerators.csv")
print(json.dumps({
    "schema": constants.CATALOG_SCHEMA_VERSION,
    "canonical": {n: accelerator_registry.canonicalize_accelerator_name(n, None) for n in names},
    "clouds": {str(n): str(c) for n, c in rows[["AcceleratorName", "Clouds"]].values},
    "tpus": catalog.get_tpus(),
}))
"""


def test_every_skypilot_name_is_in_skypilots_own_catalog(tmp_path: Path) -> None:
    """SkyPilot itself reads the names: GPUs through its accelerator catalog (read from
    the copy in tests/data, put where SkyPilot looks: it fetches it from GitHub otherwise),
    TPUs against the TPU types SkyPilot's own code lists."""
    pytest.importorskip("sky", reason="SkyPilot is not installed (nox -s cloud_schema installs it)")
    import json
    import os
    import sys

    from portbench.accelerators import load_accelerators

    named = {a.id: a.skypilot.split(":")[0] for a in load_accelerators().values() if a.skypilot}
    home = tmp_path / "home"
    catalogs = home / ".sky" / "catalogs" / "v8" / "common"
    catalogs.mkdir(parents=True)
    (catalogs / "accelerators.csv").write_bytes(CATALOG.read_bytes())
    checked = subprocess.run(
        [sys.executable, "-c", CATALOG_CHECK, json.dumps(sorted(set(named.values())))],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "HOME": str(home)},
    )
    assert checked.returncode == 0, checked.stderr[-2000:]
    seen = json.loads(checked.stdout.strip().splitlines()[-1])
    assert seen["schema"] == "v8", "SkyPilot moved its catalog schema: refresh tests/data/skypilot"
    for ident, model in named.items():
        if model.startswith("tpu-"):
            assert model in seen["tpus"], f"{ident}: SkyPilot lists no TPU type {model}"
        else:
            # SkyPilot answers a name it does not know with the name itself, so the row is
            # looked up too, through SkyPilot's own catalog reader.
            assert model in seen["clouds"] and seen["canonical"][model] == model, ident
    assert "RunPod" in seen["clouds"]["MI300X"]  # where SkyPilot's catalog offers an MI300X
    assert "GCP" in seen["clouds"]["tpu-v5litepod"] and "GCP" in seen["clouds"]["tpu-v6e"]
    assert "MI250X" not in seen["clouds"]  # why rocm-mi250 names no SkyPilot accelerator
