"""Joining this machine to a Ray cluster as a portbench node, and leaving it.

``start`` runs ``ray start`` with the node's custom resources (:mod:`.resources`) and
marks every process of the node with ``PORTBENCH_NODE_NAME`` in its environment: Ray's
workers inherit it, so a cell knows which node serves it, its containers carry the name as
a label, and ``stop`` finds exactly this node's processes, even where several nodes share a
machine (tests do; ``ray stop`` would end them all). A node that died leaves containers
behind; ``start`` (and each cell the node serves) removes them by that label first.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import BackendUnavailable, LoggedError, PortbenchError
from ..paths import state_dir
from ..results.safeio import loads_strict, read_bounded
from .resources import NodeCapabilities

__all__ = [
    "NODE_LABEL",
    "NodeStartFailed",
    "NodeState",
    "default_work_dir",
    "node_pids",
    "remove_node_containers",
    "start_node",
    "stop_node",
]

#: The docker label naming the node that started a container.
NODE_LABEL = "org.portbench.node"
NODE_FILE = "node.json"
STOP_GRACE_S = 10.0


class NodeStartFailed(LoggedError):
    """``ray start`` failed; its output (``log``) is shown after the sentence."""

    exit_code = 6


@dataclass(frozen=True)
class NodeState:
    """What ``start`` wrote in the node's work directory (``node.json``)."""

    name: str
    work_dir: Path
    head: bool
    address: str | None
    resources: dict[str, float]

    def to_json(self) -> dict[str, object]:
        return {
            "schema": 1,
            "kind": "node",
            "name": self.name,
            "head": self.head,
            "address": self.address,
            "resources": self.resources,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }


def default_work_dir(name: str) -> Path:
    return state_dir() / "node" / name


def read_state(work_dir: Path) -> dict[str, object] | None:
    try:
        data = loads_strict(read_bounded(work_dir / NODE_FILE, 1 << 20))
    except (OSError, ValueError, PortbenchError):
        return None
    return data if isinstance(data, dict) else None


def remove_node_containers(name: str) -> int:
    """Remove every container labelled as this node's; how many. No engine: none."""
    try:
        from docker.errors import APIError, DockerException, NotFound
    except ImportError:
        return 0
    from ..images.build import docker_client

    try:
        client = docker_client()
        leftovers = client.containers.list(all=True, filters={"label": f"{NODE_LABEL}={name}"})
    except (PortbenchError, DockerException):  # no engine answers here: nothing to remove
        return 0
    removed = 0
    for container in leftovers:
        try:
            container.remove(force=True)
            removed += 1
        except (NotFound, APIError, DockerException):
            continue
    return removed


def _ray_argv(
    caps: NodeCapabilities, head: bool, address: str | None, port: int, extra: list[str]
) -> list[str]:
    argv = [sys.executable, "-m", "ray.scripts.scripts", "start", "--disable-usage-stats"]
    if head:
        argv += ["--head", "--port", str(port), "--include-dashboard=false"]
    else:
        argv += ["--address", str(address)]
    return [*argv, "--resources", json.dumps(caps.resources(), sort_keys=True), *extra]


def start_node(
    caps: NodeCapabilities,
    work_dir: Path,
    head: bool,
    address: str | None,
    port: int,
    extra: list[str],
    dry_run: bool = False,
) -> tuple[list[str], int]:
    """Run ``ray start`` for this node; the command and how many leftover containers went."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise BackendUnavailable(
            "a node needs Ray, which is not installed here: pip install 'portbench[ray]'"
        ) from None
    argv = _ray_argv(caps, head, address, port, extra)
    if dry_run:
        return argv, 0
    work_dir.mkdir(parents=True, exist_ok=True)
    # A node that is starting serves nothing yet: cell folders and containers of its name
    # are what a predecessor left when it died.
    shutil.rmtree(work_dir / "cells", ignore_errors=True)
    removed = remove_node_containers(caps.name) if "docker" in caps.engines else 0
    env = dict(os.environ)
    env.update(
        PORTBENCH_NODE_NAME=caps.name,
        PORTBENCH_NODE_DIR=str(work_dir.resolve()),
        PORTBENCH_NODE_ENGINES=",".join(caps.engines),
        RAY_USAGE_STATS_ENABLED="0",
    )
    state = NodeState(caps.name, work_dir, head, address, caps.resources())
    (work_dir / NODE_FILE).write_text(json.dumps(state.to_json(), indent=2) + "\n")
    done = subprocess.run(
        argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise NodeStartFailed(
            f"ray start failed (exit {done.returncode}) for node {caps.name}; its output follows",
            log=done.stdout + done.stderr,
        )
    return argv, removed


def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read(1 << 20)
    except OSError:
        return b""


def node_pids(name: str) -> list[int]:
    """Processes started as node ``name`` (its tag is in their environment), this one aside."""
    tag = f"PORTBENCH_NODE_NAME={name}".encode()
    me = os.getpid()
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != me and tag in _environ(int(entry)).split(b"\0"):
            pids.append(int(entry))
    return pids


def stop_node(name: str, grace_s: float = STOP_GRACE_S) -> tuple[int, int]:
    """End every process of node ``name`` (SIGTERM, then SIGKILL after ``grace_s``) and
    remove its containers; (processes ended, containers removed)."""
    pids = node_pids(name)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return len(pids), remove_node_containers(name)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            # A zombie has ended; only its parent's wait is missing.
            return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return False
