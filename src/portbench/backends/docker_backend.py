"""The docker backend: each cell sealed in its own container, from its pinned image.

The container sees the runner, the manifests, the plan and the list of cases to run, all
read-only; it can write only two size-bounded tmpfs mounts (/tmp and its scratch folder)
and nothing of the host. It has no network, no capabilities, no new privileges, memory
and pid limits, a capped engine log, and runs as an unprivileged user; only what the
accelerator needs is added. The in-cell supervisor sends its records on the container's
stdout, which the host reads through an attach made before the start, checks and stores
in the cell directory (the container never sees it). A host-side watchdog stops a
container that outlives the cell's budget (docker-py's wait timeout is an HTTP timeout,
not a kill). The container's stdin is the host's attach: when the host dies (killed, its
terminal closed), the supervisor sees it close, ends its session and the container, which
removes itself; the next ``bench`` on that run says how to resume.
"""

from __future__ import annotations

import contextlib
import fcntl
import grp
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from .. import interrupts
from ..accelerators import get_accelerator
from ..errors import BackendUnavailable, CellFailed
from ..images.build import docker_client, ensure_image, image_spec
from ..paths import manifests_dir, runners_dir, state_dir
from ..results import CellWriter
from ..results.safeio import open_nofollow
from .base import CellLaunch, PreparedEnvironment
from .launch import CELL_PATHS, runner_argv, supervise_args

__all__ = ["CELL_UID", "DockerBackend", "container_options", "device_groups"]

CELL_UID = 10001
MOUNT = "/portbench"
STOP_GRACE_S = 15
#: What a container may write: its tmpfs mounts (bounded) and the engine's log (capped).
TMPFS = {"/tmp": "rw,exec,size=4g", CELL_PATHS["scratch"]: "rw,size=1g,mode=1777"}
ENGINE_LOG = {"type": "json-file", "config": {"max-size": "16m", "max-file": "1"}}
#: The supervisor's stderr kept on the host (container.log); the rest is counted.
CONTAINER_LOG_BYTES = 16 << 20


def container_options(accelerator_container: dict[str, object]) -> dict[str, object]:
    """docker SDK ``containers.run`` options an accelerator adds (images/accelerators.toml)."""
    from docker.types import DeviceRequest

    options: dict[str, object] = {}
    if accelerator_container.get("gpus"):
        gpus = str(accelerator_container["gpus"])
        count = -1 if gpus == "all" else int(gpus)
        options["device_requests"] = [DeviceRequest(count=count, capabilities=[["gpu"]])]
    if accelerator_container.get("privileged"):
        options["privileged"] = True
    if accelerator_container.get("network"):
        options["network_mode"] = accelerator_container["network"]
    if accelerator_container.get("shm_size"):
        options["shm_size"] = accelerator_container["shm_size"]
    devices = _items(accelerator_container.get("devices"))
    if devices:
        # A folder (/dev/dri) passes every device file in it, as `docker run --device` does.
        options["devices"] = [f"{d}:{d}:rwm" for d in devices]
    groups = device_groups(_items(accelerator_container.get("groups")), devices)
    if groups:
        options["group_add"] = groups
    if accelerator_container.get("ipc"):
        options["ipc_mode"] = accelerator_container["ipc"]
    if accelerator_container.get("security_opt"):
        options["security_opt"] = _items(accelerator_container["security_opt"])
    return options


def _items(value: object) -> list[str]:
    """A table's list of names (devices, groups, options) as strings; [] where there is none."""
    return [str(item) for item in value] if isinstance(value, (list, tuple)) else []


def device_groups(names: list[str], devices: list[str]) -> list[int]:
    """The host's group ids that open ``devices``: the named groups (``video``, ``render``)
    as this host numbers them, and the group owning each device file. The cell runs as an
    unprivileged user whose groups the image cannot know: /dev/kfd and /dev/dri/renderD*
    belong to the host's ``render`` group, whose id differs from machine to machine."""
    gids: list[int] = []
    for name in names:
        try:
            gids.append(grp.getgrnam(name).gr_gid)
        except KeyError:
            continue  # not a group on this host (older distributions have no render group)
    for device in devices:
        path = Path(device)
        files = sorted(path.iterdir()) if path.is_dir() else [path]
        for file in files:
            with contextlib.suppress(OSError):
                gids.append(file.stat().st_gid)
    return sorted({gid for gid in gids if gid != 0})


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
    isolation = (
        "sealed: the case runs as an unprivileged user in a read-only container with no "
        "network and no capabilities, can write only bounded tmpfs mounts, and cannot reach "
        "the cell's records or any host file; the host stores only records it checked"
    )

    def __init__(
        self,
        base: str | None = None,
        ca_bundle: Path | None = None,
        find_links: Path | None = None,
        console: Console | None = None,
        image: str | None = None,
    ) -> None:
        self.image = image
        """An image to use as it is (tag, id or export archive), checked, never rebuilt."""
        self.base = base
        self.ca_bundle = ca_bundle
        self.find_links = find_links
        self.console = console or Console(stderr=True, highlight=False)

    def available(self) -> tuple[bool, str]:
        try:
            docker_client()
        except BackendUnavailable as exc:
            return False, str(exc)
        return True, ""

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        def note(line: str) -> None:
            self.console.print(f"[dim]{escape(line)}[/]")

        spec = image_spec(
            framework, flavor, profile, self.base, self.ca_bundle, self.find_links, note
        )

        if self.image is not None:
            from ..images.archive import use_image

            image, verb = use_image(docker_client(), self.image, spec, note)
        else:
            image = ensure_image(spec, note)
            verb = "built" if image.built else "reused"
        self.console.print(
            f"image {image.tag} {verb} in {image.seconds:.1f} s ({image.size_bytes / 1e6:.0f} MB)"
        )
        return PreparedEnvironment(
            backend=self.name,
            description=f"container {image.tag}",
            image=image.record(spec.lock.verified),
            manifest_root=f"{CELL_PATHS['manifests']}/{framework}",
            installer="pip",
        )

    def run_cell(
        self, prepared: PreparedEnvironment, launch: CellLaunch, writer: CellWriter
    ) -> int:
        assert prepared.image is not None
        accelerator = get_accelerator(writer.plan.accelerator.id)
        command = runner_argv(
            "python3",
            *supervise_args(
                CELL_PATHS["plan"], CELL_PATHS["scratch"], CELL_PATHS["todo"], launch.collect_env
            ),
            "--host-stdin",  # stop when this process dies (see _run_container)
        )
        mounts = {
            str(launch.plan_path): {"bind": CELL_PATHS["plan"], "mode": "ro"},
            str(launch.todo_path): {"bind": CELL_PATHS["todo"], "mode": "ro"},
        }
        log = _BoundedLog(launch.logs / "container.log", self.console)
        with _exclusive(accelerator.flavor), log:
            return self._run_container(
                prepared.image.tag,
                accelerator.container,
                launch.cell_dir,
                launch.budget_s,
                command,
                mounts,
                on_stdout=writer.feed,
                on_stderr=log.write,
            )

    def run_tool(self, prepared: PreparedEnvironment, args: list[str], out_dir: Path) -> int:
        """The walker in the cell's container; ``out_dir`` (a folder the host just made, owned
        by the cell's user) is its one writable host folder, at /portbench/run."""
        assert prepared.image is not None
        _hand_to_cell_user(out_dir)
        mounts = {str(out_dir.resolve()): {"bind": CELL_PATHS["out"], "mode": "rw"}}
        log = _BoundedLog(out_dir.parent / f"{out_dir.name}.log", self.console)
        with log:
            return self._run_container(
                prepared.image.tag,
                {},
                out_dir,
                3600,
                runner_argv("python3", *args),
                mounts,
                on_stdout=log.write,
                on_stderr=log.write,
            )

    def _run_container(
        self,
        tag: str,
        accelerator_container: dict[str, object],
        label_dir: Path,
        budget_s: float,
        command: list[str],
        mounts: dict[str, dict[str, str]],
        on_stdout: Any,
        on_stderr: Any,
    ) -> int:
        from docker.errors import APIError, DockerException, NotFound
        from docker.types import LogConfig

        client = docker_client()
        options: dict[str, object] = {
            "network_mode": "none",
            "read_only": True,
            "tmpfs": dict(TMPFS),
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "mem_limit": os.environ.get("PORTBENCH_MEM_LIMIT", "16g"),
            "pids_limit": 4096,
            "user": f"{CELL_UID}:{CELL_UID}",
            "log_config": LogConfig(type=ENGINE_LOG["type"], config=ENGINE_LOG["config"]),
            # Which cell a container serves, so it can be found (and cleaned up) by that.
            "labels": _labels(label_dir),
            # The machine's name, not the container id Docker would give: env.json's host is
            # how `compare` tells two machines apart, and a container id tells only two runs.
            "hostname": socket.gethostname(),
        }
        extra = container_options(accelerator_container)
        # An accelerator's security options come on top of the cell's own, never instead.
        extra["security_opt"] = [
            *_items(options["security_opt"]),
            *_items(extra.get("security_opt")),
        ]
        options.update(extra)
        # The engine takes a relative source for a volume name ("results/x/plan.json" is
        # refused as one): every host path is made absolute here, whatever the user typed.
        volumes = {
            os.path.abspath(source): target
            for source, target in {
                str(runners_dir()): {"bind": CELL_PATHS["runners"], "mode": "ro"},
                str(manifests_dir()): {"bind": CELL_PATHS["manifests"], "mode": "ro"},
                **mounts,
            }.items()
        }
        container = None
        try:
            # stdin_open (StdinOnce with it): the container's stdin is the host's attach
            # below, and closes when the host process dies, however it dies; the supervisor
            # (--host-stdin) then ends its session. auto_remove: a container whose host is
            # gone removes itself once it stops, so none is left behind.
            container = client.containers.create(
                tag,
                command,
                volumes=volumes,
                environment={"PYTHONPATH": CELL_PATHS["runners"], "PYTHONUNBUFFERED": "1"},
                stdin_open=True,
                auto_remove=True,
                **options,
            )
            waiter = _Waiter(client, container.id)
            # Attached before the start, so not a byte of the records is missed.
            stream = client.api.attach(
                container.id, stdout=True, stderr=True, stream=True, logs=False, demux=True
            )
            stdin = client.api.attach_socket(container.id, params={"stdin": 1, "stream": 1})
            container.start()
        except (APIError, DockerException) as exc:
            if container is not None:  # created, never started: auto_remove does not apply
                with contextlib.suppress(APIError, NotFound, DockerException):
                    container.remove(force=True)
            if isinstance(exc, APIError):
                raise CellFailed(
                    f"the Docker engine refused to start {tag}: {exc.explanation}"
                ) from None
            raise CellFailed(f"the Docker engine failed while starting {tag}: {exc}") from None
        reader = threading.Thread(target=_pump, args=(stream, on_stdout, on_stderr), daemon=True)
        reader.start()
        deadline = time.monotonic() + budget_s
        try:
            while not waiter.done.wait(0.5):
                if time.monotonic() > deadline:
                    # The watchdog: the in-cell supervisor should never let this happen.
                    container.stop(timeout=STOP_GRACE_S)
                    raise CellFailed(
                        f"container of {tag} outlived the cell budget of {budget_s:.0f} s and "
                        "was stopped; resume to finish"
                    )
            status = waiter.status()
        except KeyboardInterrupt:
            # The signal this process got (SIGINT for Ctrl-C) goes on to the supervisor (PID
            # 1), which ends the session as interrupted, naming it; what it still sends is
            # read before the interrupt goes on. docker stop is the fallback.
            with contextlib.suppress(APIError, NotFound):
                container.kill(signal=int(interrupts.received()))
            if not waiter.done.wait(STOP_GRACE_S):
                with contextlib.suppress(APIError, NotFound):
                    container.stop(timeout=5)
            reader.join(timeout=STOP_GRACE_S + 10)
            return 130
        except (APIError, DockerException) as exc:
            with contextlib.suppress(APIError, NotFound, DockerException):
                container.stop(timeout=STOP_GRACE_S)
            raise CellFailed(
                f"the Docker engine failed while {tag} ran ({exc}); what was recorded is "
                "kept: check the engine (docker info) and resume"
            ) from None
        finally:
            reader.join(timeout=30)
            with contextlib.suppress(OSError):
                _close_socket(stdin)
            with contextlib.suppress(NotFound, APIError, DockerException):
                container.remove(force=True)
        return status


class _Waiter:
    """``docker wait`` until the container is removed, in a thread: the container removes
    itself (auto_remove), so its exit status is taken from the wait, never looked up after.
    No HTTP timeout: a cell may run for hours (the budget watchdog is the loop's)."""

    def __init__(self, client: Any, container_id: str) -> None:
        self.done = threading.Event()
        self._result: Any = None
        self._error: BaseException | None = None
        thread = threading.Thread(
            target=self._wait, args=(client, container_id), name="docker-wait", daemon=True
        )
        thread.start()

    def _wait(self, client: Any, container_id: str) -> None:
        try:
            self._result = client.api.wait(container_id, timeout=None, condition="removed")
        except BaseException as exc:  # the engine went away: raised in the caller's thread
            self._error = exc
        finally:
            self.done.set()

    def status(self) -> int:
        if self._error is not None:
            raise self._error
        result = self._result if isinstance(self._result, dict) else {}
        return int(result.get("StatusCode", 1))


def _close_socket(sock: Any) -> None:
    """Close the stdin attach (docker-py hands back a socket, or a wrapper around one)."""
    raw = getattr(sock, "_sock", sock)
    with contextlib.suppress(OSError):
        raw.shutdown(socket.SHUT_RDWR)
    raw.close()


def _labels(label_dir: Path) -> dict[str, str]:
    """Which cell a container serves, and which cluster node started it (``portbench node
    start`` names its processes): so it can be found, and cleaned up after a crash, by that."""
    labels = {"org.portbench.run-dir": str(label_dir.resolve())}
    node = os.environ.get("PORTBENCH_NODE_NAME")
    if node:
        labels["org.portbench.node"] = node
    return labels


def _pump(stream: Any, on_stdout: Any, on_stderr: Any) -> None:
    """Feed the demultiplexed attach stream to its two consumers until the container ends."""
    from docker.errors import DockerException

    try:
        for out, err in stream:
            if out:
                on_stdout(out)
            if err:
                on_stderr(err)
    except (DockerException, OSError):
        return


def _hand_to_cell_user(folder: Path) -> None:
    """Let the cell's user write ``folder``, a folder the host has just made (never a link)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
    try:
        if os.geteuid() == 0:
            os.fchown(fd, CELL_UID, CELL_UID)
        else:
            os.fchmod(fd, 0o777)
    finally:
        os.close(fd)


class _BoundedLog:
    """The container's stderr: shown on the console, kept in a file up to a size, then counted."""

    def __init__(self, path: Path, console: Console) -> None:
        self.path = path
        self.console = console
        self._fd: int | None = None
        self.kept = 0
        self.dropped = 0

    def __enter__(self) -> _BoundedLog:
        self._fd = open_nofollow(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            if self.dropped:
                os.write(self._fd, f"[{self.dropped} more bytes not kept]\n".encode())
            os.close(self._fd)
            self._fd = None

    def write(self, chunk: bytes) -> None:
        room = CONTAINER_LOG_BYTES - self.kept
        if self._fd is not None and room > 0:
            os.write(self._fd, chunk[:room])
            self.kept += min(room, len(chunk))
        self.dropped += max(0, len(chunk) - max(room, 0))
        text = chunk.decode("utf-8", "replace").rstrip()
        if text:
            self.console.print(text[-2000:], style="dim", markup=False, highlight=False)
