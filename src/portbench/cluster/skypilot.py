"""SkyPilot task files that bring portbench nodes up on a cloud, one per accelerator type.

Each task's ``setup`` installs Docker (where the image lacks it), Python 3.11 and portbench
with the same Ray version as the head; its ``run`` either joins the head's Ray cluster as
a node (``join``: results come back through the head) or runs this machine's matrix into a
bucket mounted at ``/results`` (``bench``). The accelerator names come from the
accelerator table's ``skypilot`` column. These files were checked against SkyPilot's own
task schema, never launched from here: docs/cluster.md says what is untried.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..accelerators import Accelerator
from ..errors import UsageError

__all__ = ["RenderRequest", "render_tasks", "task_document", "to_yaml"]

# $HOME, not ~: a tilde inside quotes is not expanded.
VENV = "$HOME/portbench-venv"
CHECKOUT = "$HOME/portbench"
#: A CPU node: any VM with this many cores (the CPU cells time on every core).
CPU_CORES = "8+"
#: TPU VMs need the base runtime: the TPU software comes from each cell's own environment.
#: v5e and v6e need newer base images, named per id in the table (``tpu_runtime``).
TPU_RUNTIME = "tpu-vm-base"
MODES = ("join", "bench")


@dataclass(frozen=True)
class RenderRequest:
    mode: str
    profile: str
    frameworks: tuple[str, ...]
    repo: str
    ref: str
    ray_version: str
    head: str | None = None
    """join: the head's HOST:PORT, on the cloud's private network."""
    cloud: str | None = None
    bucket: str | None = None
    """bench: the bucket mounted at /results, where each VM writes its run."""


SETUP = """set -euo pipefail
if ! command -v docker >/dev/null; then curl -fsSL https://get.docker.com | sudo sh; fi
sudo usermod -aG docker "$USER"
if command -v nvidia-smi >/dev/null && ! command -v nvidia-ctk >/dev/null; then
  echo "this GPU image has no NVIDIA container toolkit: use an image with it (docs/cluster.md)" >&2
  exit 1
fi
python3 -m pip install --user --upgrade uv
~/.local/bin/uv venv --python 3.11 "{venv}"
if [ -d "{checkout}/.git" ]; then git -C "{checkout}" fetch --depth 1 origin "$PORTBENCH_REF";
  git -C "{checkout}" checkout FETCH_HEAD; else
  git clone --depth 1 --branch "$PORTBENCH_REF" "$PORTBENCH_REPO" "{checkout}"; fi
~/.local/bin/uv pip install --python "{venv}/bin/python" -e "{checkout}[ray]" "ray==$PORTBENCH_RAY_VERSION"
"""

RUN_JOIN = """set -euo pipefail
cd "{checkout}"
# The docker group joined in setup is not this shell's yet: sg gives it.
sg docker -c "{venv}/bin/portbench node start --address $PORTBENCH_HEAD \\
  --name portbench-{acc}-$SKYPILOT_NODE_RANK --block"
"""

RUN_BENCH = """set -euo pipefail
cd "{checkout}"
sg docker -c "{venv}/bin/portbench matrix --profile $PORTBENCH_PROFILE \\
  --frameworks {frameworks} --run-dir {results}/{acc}-$SKYPILOT_TASK_ID"
"""


def _not_provisionable(acc: Accelerator) -> str:
    if acc.flavor == "mps":
        return f"accelerator '{acc.id}' is a Mac's GPU, which SkyPilot does not provision; run its cells on a Mac"
    if acc.id == acc.generic:
        return (
            f"accelerator '{acc.id}' names no model SkyPilot could provision; name one "
            f"(gpu-t4, rocm-mi300x, tpu-v5e...) instead of the generic '{acc.generic}'"
        )
    return (
        f"accelerator '{acc.id}' has no machine in SkyPilot's catalog; run its cells where you "
        "have one (`portbench node start` there joins a cluster)"
    )


def _resources(acc: Accelerator, cloud: str | None) -> dict[str, object]:
    resources: dict[str, object] = {}
    if cloud:
        resources["cloud"] = cloud
    if acc.flavor == "cpu":
        resources["cpus"] = CPU_CORES
    elif not acc.skypilot:
        raise UsageError(_not_provisionable(acc))
    else:
        resources["accelerators"] = acc.skypilot
    if acc.flavor == "tpu":
        resources["accelerator_args"] = {"runtime_version": acc.tpu_runtime or TPU_RUNTIME}
    return resources


def task_document(acc: Accelerator, request: RenderRequest) -> dict[str, object]:
    """The SkyPilot task for one accelerator type, as data."""
    if request.mode not in MODES:
        raise UsageError(f"unknown mode '{request.mode}' (known: {', '.join(MODES)})")
    if request.mode == "join" and not request.head:
        raise UsageError("--mode join needs --head HOST:PORT, the Ray head the VMs join")
    envs = {
        "PORTBENCH_REPO": request.repo,
        "PORTBENCH_REF": request.ref,
        "PORTBENCH_RAY_VERSION": request.ray_version,
        "PORTBENCH_PROFILE": request.profile,
    }
    fill = {"venv": VENV, "checkout": CHECKOUT, "acc": acc.id}
    task: dict[str, object] = {
        "name": f"portbench-{acc.id}",
        "resources": _resources(acc, request.cloud),
        "num_nodes": 1,
    }
    if request.mode == "join":
        envs["PORTBENCH_HEAD"] = str(request.head)
        run = RUN_JOIN.format(**fill)
    else:
        results = "/results" if request.bucket else f"{CHECKOUT}/results"
        run = RUN_BENCH.format(**fill, frameworks=" ".join(request.frameworks), results=results)
        if request.bucket:
            task["file_mounts"] = {"/results": {"name": request.bucket, "mode": "MOUNT"}}
    task["envs"] = envs
    task["setup"] = SETUP.format(**fill)
    task["run"] = run
    return task


def _scalar(value: Any) -> str:
    # JSON's quoted strings, numbers and booleans are YAML's too.
    return json.dumps(value)


def _emit(value: Any, indent: int, lines: list[str]) -> None:
    pad = "  " * indent
    for key, item in value.items():
        if isinstance(item, Mapping):
            lines.append(f"{pad}{key}:")
            _emit(item, indent + 1, lines)
        elif isinstance(item, str) and "\n" in item:
            lines.append(f"{pad}{key}: |")
            lines += [f"{pad}  {line}" if line else "" for line in item.rstrip("\n").split("\n")]
        else:
            lines.append(f"{pad}{key}: {_scalar(item)}")


def to_yaml(task: Mapping[str, Any]) -> str:
    """The task as YAML: mappings, one-line scalars quoted as JSON, scripts as block text."""
    lines = ["# Made by `portbench cloud render`; not launched from where it was made."]
    _emit(task, 0, lines)
    return "\n".join(lines) + "\n"


def render_tasks(
    accelerators: Sequence[Accelerator], request: RenderRequest, out_dir: Path
) -> list[Path]:
    """One ``<accelerator>.yaml`` per accelerator in ``out_dir``; the files written."""
    documents = [(acc, task_document(acc, request)) for acc in accelerators]
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for acc, task in documents:
        path = out_dir / f"portbench-{acc.id}.yaml"
        path.write_text(to_yaml(task), encoding="utf-8")
        written.append(path)
    return written
