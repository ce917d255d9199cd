"""A real Ray cluster of several nodes on this one machine, in a network namespace of its own:
what the tests and the benchmark of ``matrix --engine ray`` run on.

A holder process is started in a new network namespace (``unshare --net``) whose only
interface is loopback; every process of the cluster (``portbench node start`` and what Ray
starts from it, and the head's ``portbench matrix``) enters that namespace with
``nsenter``, so no Ray port is ever reachable from outside the test. Where namespaces
cannot be made (not root), every process binds to 127.0.0.1 instead, and the tests say so.

The cluster: a head node that serves no cells (it runs Ray's control plane and the
head's ``matrix``, as a real head machine does) and the nodes named, each with its own Ray
temp dir and portbench work directory.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ADDRESS", "LocalCluster", "NodeSpec", "make_cluster", "namespace_holder"]

#: The portbench package's folder, for PYTHONPATH: Ray's workers must import this portbench.
SRC = Path(__file__).resolve().parents[2]
PORT = 6379
ADDRESS = f"127.0.0.1:{PORT}"


@dataclass(frozen=True)
class NodeSpec:
    name: str
    engines: tuple[str, ...]
    profiles: tuple[str, ...]


def namespace_holder() -> subprocess.Popen[bytes] | None:
    """A process in a new network namespace with loopback up; None where none can be made."""
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        return None
    holder = subprocess.Popen(
        ["unshare", "--net", "--", "sleep", "infinity"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.2)
    if holder.poll() is not None:
        return None
    up = subprocess.run(
        ["nsenter", "-t", str(holder.pid), "-n", "--", "ip", "link", "set", "lo", "up"],
        capture_output=True,
        check=False,
    )
    if up.returncode != 0:
        holder.kill()
        holder.wait()
        return None
    return holder


@dataclass
class LocalCluster:
    root: Path
    home: Path
    holder: subprocess.Popen[bytes] | None
    nodes: tuple[NodeSpec, ...]
    env: dict[str, str] = field(default_factory=dict)
    ray_root: Path = field(
        default_factory=lambda: Path(tempfile.mkdtemp(prefix="pbr-", dir="/tmp"))
    )
    """Ray's temp dirs, one per node: short, since Ray's socket paths must fit in 107 bytes."""

    @property
    def isolated(self) -> bool:
        return self.holder is not None

    def prefix(self) -> list[str]:
        if self.holder is None:
            return []
        return ["nsenter", "-t", str(self.holder.pid), "-n", "--"]

    def work_dir(self, name: str) -> Path:
        return self.root / "nodes" / name

    def portbench(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.prefix(), sys.executable, "-m", "portbench.cli", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        """The command in the background, with SIGINT at its default disposition (a child of a
        background job inherits it ignored; nsenter execs, so the pid is Python's)."""
        reset = (
            "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
            "os.execvp(sys.argv[1], sys.argv[1:])"
        )
        return subprocess.Popen(
            [
                *self.prefix(),
                sys.executable,
                "-c",
                reset,
                sys.executable,
                "-m",
                "portbench.cli",
                *args,
            ],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def start_node(self, spec: NodeSpec) -> None:
        done = self.portbench(
            "node",
            "start",
            "--address",
            ADDRESS,
            "--name",
            spec.name,
            "--work-dir",
            str(self.work_dir(spec.name)),
            "--engines",
            *spec.engines,
            "--profiles",
            *spec.profiles,
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "1",
            "--temp-dir",
            str(self.ray_root / spec.name),
        )
        if done.returncode != 0:
            raise RuntimeError(f"node {spec.name} did not start: {done.stdout}{done.stderr}")

    def start(self) -> None:
        done = self.portbench(
            "node",
            "start",
            "--head",
            "--no-cells",
            "--port",
            str(PORT),
            "--name",
            "head",
            "--work-dir",
            str(self.work_dir("head")),
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "1",
            "--temp-dir",
            str(self.ray_root / "head"),
        )
        if done.returncode != 0:
            raise RuntimeError(f"the head did not start: {done.stdout}{done.stderr}")
        for spec in self.nodes:
            self.start_node(spec)

    def stop(self, extra: tuple[str, ...] = ()) -> None:
        """Stop every node (and those of ``extra`` names a test started), then the namespace."""
        names = [*extra, *(spec.name for spec in reversed(self.nodes)), "head"]
        for name in names:
            self.portbench("node", "stop", "--name", name, timeout=120)
        if self.holder is not None:
            self.holder.send_signal(signal.SIGKILL)
            self.holder.wait()
        shutil.rmtree(self.ray_root, ignore_errors=True)


def make_cluster(root: Path, home: Path, nodes: tuple[NodeSpec, ...]) -> LocalCluster:
    """A cluster (not started) of ``nodes`` and a head, portbench's data from ``home``."""
    holder = namespace_holder()
    cluster = LocalCluster(root, home, holder, nodes)
    cluster.env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]),
        # Ray's control plane, tuned for a test: a killed node is declared dead within
        # seconds, not Ray's default of about 30.
        "PORTBENCH_HOME": str(home),
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_health_check_period_ms": "500",
        "RAY_health_check_timeout_ms": "1000",
        "RAY_health_check_failure_threshold": "3",
    }
    return cluster
