"""The docker backend: each cell in its own container, from its pinned image.

The container sees the runner and the manifests read-only, its run directory
read-write, a private tmpfs /tmp, and nothing else writable; no network, no
capabilities, no new privileges, memory and pid limits; only what the accelerator
needs is added. A host-side watchdog stops a container that outlives the cell's
budget (docker-py's wait timeout is an HTTP timeout, not a kill).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console

from ..accelerators import get_accelerator
from ..errors import BackendUnavailable, CellFailed
from ..images.build import docker_client, ensure_image, image_spec
from ..paths import manifests_dir, runners_dir, state_dir
from .base import PreparedEnvironment

__all__ = ["CELL_UID", "DockerBackend", "container_options"]

CELL_UID = 10001
MOUNT = "/portbench"
STOP_GRACE_S = 15


def container_options(accelerator_container: dict[str, Any]) -> dict[str, Any]:
    """docker SDK ``containers.run`` options an accelerator adds (images/accelerators.toml)."""
    from docker.types import DeviceRequest

    options: dict[str, Any] = {}
    if accelerator_container.get("gpus"):
        count = -1 if accelerator_container["gpus"] == "all" else int(accelerator_container["gpus"])
        options["device_requests"] = [DeviceRequest(count=count, capabilities=[["gpu"]])]
    if accelerator_container.get("privileged"):
        options["privileged"] = True
    if accelerator_container.get("network"):
        options["network_mode"] = accelerator_container["network"]
    if accelerator_container.get("shm_size"):
        options["shm_size"] = accelerator_container["shm_size"]
    return options


@contextlib.contextmanager
def _exclusive(accelerator_flavor: str) -> Iterator[None]:
    """TPU cells run one at a time: libtpu lets one process own the chips."""
    if accelerator_flavor != "tpu":
        yield
        return
    state_dir().mkdir(parents=True, exist_ok=True)
    with open(state_dir() / "tpu.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


class DockerBackend:
    name = "docker"

    def __init__(
        self, base: str | None = None, ca_bundle: Path | None = None, find_links: Path | None = None
    ) -> None:
        self.base = base
        self.ca_bundle = ca_bundle
        self.find_links = find_links
        self.console = Console(stderr=True, highlight=False)
        self.accelerator_id: str | None = None

    def available(self) -> tuple[bool, str]:
        try:
            docker_client()
        except BackendUnavailable as exc:
            return False, str(exc)
        return True, ""

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        spec = image_spec(framework, flavor, profile, self.base, self.ca_bundle, self.find_links)
        image = ensure_image(spec, lambda line: self.console.print(f"[dim]{line}[/]"))
        verb = "built" if image.built else "reused"
        self.console.print(
            f"image {image.tag} {verb} in {image.seconds:.1f} s ({image.size_bytes / 1e6:.0f} MB)"
        )
        return PreparedEnvironment(
            backend=self.name,
            description=f"container {image.tag}",
            image={"id": image.id, "tag": image.tag, "lock_verified": spec.lock.verified},
            manifest_root=f"{MOUNT}/manifests/{framework}",
        )

    def run(self, prepared: PreparedEnvironment, plan_path: Path, run_dir: Path) -> int:
        assert prepared.image is not None
        plan = json.loads(plan_path.read_text())
        accelerator = get_accelerator(plan["accelerator"]["id"])
        budget_s = sum(c.get("timeout_s") or 900 for f in plan["functions"] for c in f["cases"])
        budget_s += plan["timeouts"].get("worker_start_s", 600) * (1 + plan["max_restarts"])
        (run_dir / "logs").mkdir(parents=True, exist_ok=True)
        self._own_run_dir(run_dir)
        with _exclusive(accelerator.flavor):
            return self._run_container(
                prepared.image["tag"], accelerator.container, run_dir, budget_s
            )

    @staticmethod
    def _own_run_dir(run_dir: Path) -> None:
        """The container's user must be able to write its run directory, and only that."""
        for path in [run_dir, *run_dir.rglob("*")]:
            if os.geteuid() == 0:
                os.chown(path, CELL_UID, CELL_UID)
            else:
                path.chmod(0o777 if path.is_dir() else 0o666)

    def run_tool(self, prepared: PreparedEnvironment, args: list[str], run_dir: Path) -> int:
        """Run ``python -m portbench_runner ARGS`` in the cell's container, with ``run_dir``
        writable at /portbench/run and the same sandbox as a cell (``portbench enumerate``)."""
        assert prepared.image is not None
        (run_dir / "logs").mkdir(parents=True, exist_ok=True)
        self._own_run_dir(run_dir)
        command = ["python3", "-m", "portbench_runner", *args]
        return self._run_container(prepared.image["tag"], {}, run_dir, 3600, command)

    def _run_container(
        self,
        tag: str,
        accelerator_container: dict[str, Any],
        run_dir: Path,
        budget_s: float,
        command: list[str] | None = None,
    ) -> int:
        from docker.errors import APIError, NotFound

        client = docker_client()
        options: dict[str, Any] = {
            "network_mode": "none",
            "read_only": True,
            "tmpfs": {"/tmp": "rw,exec,size=4g"},
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "mem_limit": os.environ.get("PORTBENCH_MEM_LIMIT", "16g"),
            "pids_limit": 4096,
            "user": f"{CELL_UID}:{CELL_UID}",
            # Which cell a container serves, so it can be found (and cleaned up) by that.
            "labels": {"org.portbench.run-dir": str(run_dir.resolve())},
        }
        options.update(container_options(accelerator_container))
        volumes = {
            str(runners_dir()): {"bind": f"{MOUNT}/runners", "mode": "ro"},
            str(manifests_dir()): {"bind": f"{MOUNT}/manifests", "mode": "ro"},
            str(run_dir.resolve()): {"bind": f"{MOUNT}/run", "mode": "rw"},
        }
        command = command or [
            "python3",
            "-m",
            "portbench_runner",
            "supervise",
            "--plan",
            f"{MOUNT}/run/plan.json",
            "--run-dir",
            f"{MOUNT}/run",
        ]
        try:
            container = client.containers.run(
                tag,
                command,
                detach=True,
                volumes=volumes,
                environment={"PYTHONPATH": f"{MOUNT}/runners"},
                **options,
            )
        except APIError as exc:
            raise CellFailed(
                f"the Docker engine refused to start {tag}: {exc.explanation}"
            ) from None
        logger = threading.Thread(
            target=self._stream_logs,
            args=(container, run_dir / "logs" / "container.log"),
            daemon=True,
        )
        logger.start()
        deadline = time.monotonic() + budget_s
        try:
            while True:
                container.reload()
                if container.status in ("exited", "dead"):
                    break
                if time.monotonic() > deadline:
                    # The watchdog: the in-cell supervisor should never let this happen.
                    container.stop(timeout=STOP_GRACE_S)
                    raise CellFailed(
                        f"container of {tag} outlived the cell budget of {budget_s:.0f} s and was stopped; resume to finish"
                    )
                time.sleep(0.5)
            status = int(container.wait().get("StatusCode", 1))
        except KeyboardInterrupt:
            # SIGTERM reaches the supervisor (PID 1), which ends the session as interrupted.
            container.stop(timeout=STOP_GRACE_S)
            raise
        finally:
            logger.join(timeout=5)
            with contextlib.suppress(NotFound, APIError):
                container.remove(force=True)
        return status

    def _stream_logs(self, container: Any, path: Path) -> None:
        with open(path, "ab") as handle:
            for chunk in container.logs(stream=True, follow=True):
                handle.write(chunk)
                handle.flush()
                text = chunk.decode("utf-8", "replace").rstrip()
                if text:
                    self.console.print(text, style="dim", markup=False, highlight=False)
