"""The head of a matrix on a Ray cluster: one Ray task per cell, each landed as it returns.

Each cell is a task that needs its accelerator, its profile and a node's one slot
(:mod:`.resources`), so Ray places it on a node that has them and runs one cell per node at
a time. Ray retries a task whose node died (``MAX_RETRIES``); the retry starts the cell
afresh on another node, and only the archive that comes back is landed, so a cell is never
recorded twice. A cell that no live node could ever serve (no node advertises what it needs)
is cancelled and listed as unreachable once that has lasted ``unreachable_after_s``; a
cell merely waiting for a busy node waits. Ctrl-C cancels what runs (each node stops its
cell) and leaves the run for ``--resume``.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from portbench_runner.contract import JSONObject

from ..errors import BackendUnavailable, CellInterrupted, PortbenchError
from .archive import ArchiveRefused
from .hub import EventLog, make_hub
from .landing import land_cell
from .resources import advertised_name, node_name_resource, serves
from .serve import CellOrder

__all__ = [
    "DEFAULT_UNREACHABLE_AFTER_S",
    "MAX_RETRIES",
    "CellJob",
    "connect",
    "dispatch_cells",
    "require_ray",
]

#: How long a cell may find no live node able to serve it before it is listed unreachable:
#: long enough for an autoscaler or SkyPilot to bring a node up (a GPU VM boots in 2-5 min).
DEFAULT_UNREACHABLE_AFTER_S = 600.0
#: Ray retries a cell's task this often when its node (or worker) dies.
MAX_RETRIES = 3
POLL_S = 0.5
CONNECT_TIMEOUT_S = 5.0
NODES_EVERY_S = 2.0
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
_HEX = re.compile(r"^[0-9a-f]{1,64}$")
NODE_PREFIX = node_name_resource("")


def require_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendUnavailable(
            "the ray engine needs Ray, which is not installed here: pip install 'portbench[ray]'"
        ) from None
    return ray


def _answers(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> bool:
    """Whether something accepts TCP connections at HOST:PORT (Ray's own client retries an
    address that answers nothing for as long as it is left to)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise BackendUnavailable(f"--address {address!r} is not HOST:PORT (e.g. 10.0.0.2:6379)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            return True
    except OSError:
        return False


def connect(address: str | None) -> Any:
    """Join the cluster at ``address`` (or the one this machine's node belongs to)."""
    ray = require_ray()
    if address and not _answers(address):
        raise BackendUnavailable(
            f"nothing answers at {address} within {CONNECT_TIMEOUT_S:.0f} s; start the head "
            "with `portbench node start --head` there, or check the address and the network"
        )
    try:
        ray.init(
            address=address or "auto",
            log_to_driver=False,
            logging_level="ERROR",
            configure_logging=True,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or "this machine's node (auto)"
        raise BackendUnavailable(
            f"cannot reach a Ray cluster at {where} ({str(exc).splitlines()[0][:160]}); start "
            "one with `portbench node start --head`, or pass --address HOST:PORT"
        ) from None
    return ray


@dataclass
class CellJob:
    """One cell of the matrix: the order a node gets, what it needs, and how it went."""

    cell: str
    order: CellOrder | None
    needed: dict[str, float]
    total: int
    ref: Any = None
    submitted: float = 0.0
    unservable_since: float | None = None
    row: JSONObject = field(default_factory=dict)


def _task(order: JSONObject, hub: Any) -> JSONObject:
    """The Ray task (runs on a node)."""
    import ray

    from .serve import serve_cell

    def post(event: JSONObject) -> None:
        try:
            hub.post.remote(event)
        except Exception:  # the head is gone: the cell still finishes
            pass

    result = serve_cell(order, post)
    result["ray_node_id"] = ray.get_runtime_context().get_node_id()
    return result


#: What Ray says of a node (``ray.nodes()``): its id, address, resources, liveness.
RayNode = dict[str, Any]


def _alive_nodes(ray: Any) -> dict[str, RayNode]:
    return {n["NodeID"]: n for n in ray.nodes() if n.get("Alive")}


def _section(obj: JSONObject, key: str) -> JSONObject:
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _provenance(result: JSONObject, nodes: dict[str, RayNode]) -> JSONObject:
    """What the head vouches for (Ray's view of the node) and what the node said of itself."""
    said = _section(result, "node")
    node_id = result.get("ray_node_id")
    node_id = node_id if isinstance(node_id, str) and _HEX.match(node_id) else None
    seen = nodes.get(node_id or "", {})
    # The name Ray knows the node by (its advertised resource), not the one it claims.
    known = advertised_name(seen.get("Resources", {}))
    claimed, engines = said.get("name"), said.get("engines")
    return {
        "name": known or "unknown",
        "attempt": result.get("attempt") if _HEX.match(str(result.get("attempt"))) else "x",
        "ray_node_id": node_id,
        "address": seen.get("NodeManagerAddress"),
        "resources": sorted(k for k in seen.get("Resources", {}) if ":" in k)[:64],
        "said_by_node": {
            "name": claimed[:64] if isinstance(claimed, str) and _NAME.match(claimed) else None,
            "hostname": str(said.get("hostname"))[:128],
            "engines": [str(e)[:16] for e in engines][:8] if isinstance(engines, list) else [],
        },
    }


def _times(result: JSONObject) -> dict[str, float]:
    times = _section(result, "times")
    keys = ("task_started", "cell_started", "cell_ended", "packed")
    return {
        k: float(v)
        for k in keys
        if isinstance(v := times.get(k), (int, float)) and not isinstance(v, bool)
    }


def _finish(
    job: CellJob, ray: Any, run_dir: Path, console: Console, nodes: dict[str, RayNode]
) -> None:
    """Fetch a finished task's result, land its archive, fill the job's row."""
    try:
        result = ray.get(job.ref)
    except ray.exceptions.RayError as exc:
        # A task's own exception travels as its cause; Ray's text around it is a traceback.
        cause = getattr(exc, "cause", None) or exc
        lines = [line for line in str(cause).strip().splitlines() if line.strip()]
        first = lines[-1][:300] if lines else type(cause).__name__
        why = f"the task failed on every try ({first})"
        job.row = {"status": "failed", "reason": why}
        console.print(f"[red]{job.cell} failed:[/] {escape(why)}")
        return
    if not isinstance(result, dict) or result.get("cell") != job.cell:
        job.row = {"status": "failed", "reason": "the node sent back something that is no cell"}
        return
    node = _provenance(result, nodes)
    times = _times(result)
    reason = str(result.get("reason") or "")[:600]
    archive = result.get("archive")
    row: JSONObject = {"node": node["name"], "ray_node_id": node["ray_node_id"]}
    if not isinstance(archive, bytes):
        job.row = {**row, "status": "failed", "reason": reason or "the node made no cell"}
        console.print(
            f"[red]{job.cell} failed on {node['name']}:[/] {escape(str(job.row['reason']))}"
        )
        return
    try:
        landed = land_cell(run_dir, job.cell, archive, node)
    except (ArchiveRefused, PortbenchError) as exc:
        job.row = {**row, "status": "failed", "reason": f"refused: {exc}"}
        console.print(f"[red]{job.cell} from {node['name']} refused:[/] {escape(str(exc))}")
        return
    landed_at = time.time()
    status = "complete" if landed.complete else "incomplete"
    job.row = {
        **row,
        "status": status,
        "reason": reason or None,
        "recorded": landed.recorded,
        "planned": landed.planned,
        "new_records": landed.new_records,
        "wall_s": round(landed_at - job.submitted, 3),
        "dispatch": _dispatch_figures(job.submitted, times, landed_at, len(archive)),
    }
    colour = "green" if landed.complete else "yellow"
    console.print(
        f"[{colour}]{job.cell}[/] landed from {node['name']}: {landed.recorded}/{landed.planned} "
        f"cases ({landed.new_records} new){' — ' + escape(reason) if reason else ''}"
    )


def _dispatch_figures(
    submitted: float, times: dict[str, float], landed: float, size: int
) -> dict[str, float]:
    """Where a cell's time went outside the cell itself (seconds; one clock on one machine,
    node clocks against the head's on several)."""
    figures: dict[str, float] = {"archive_bytes": size}
    if "task_started" in times:
        figures["submit_to_task_s"] = round(times["task_started"] - submitted, 4)
    if "cell_started" in times and "task_started" in times:
        figures["task_to_cell_s"] = round(times["cell_started"] - times["task_started"], 4)
    if "cell_started" in times and "cell_ended" in times:
        figures["cell_s"] = round(times["cell_ended"] - times["cell_started"], 4)
    if "cell_ended" in times:
        figures["return_s"] = round(landed - times["cell_ended"], 4)
    return figures


def _check_unservable(
    jobs: list[CellJob], ray: Any, nodes: dict[str, RayNode], limit_s: float, console: Console
) -> None:
    now = time.monotonic()
    totals = [n.get("Resources", {}) for n in nodes.values()]
    for job in jobs:
        if job.row:
            continue
        if any(serves(t, job.needed) for t in totals):
            job.unservable_since = None
            continue
        job.unservable_since = job.unservable_since or now
        if now - job.unservable_since >= limit_s:
            ray.cancel(job.ref, force=False)
            wanted = ", ".join(sorted(job.needed))
            why = f"no live node advertised {wanted} for {limit_s:.0f} s"
            job.row = {"status": "unreachable", "reason": why}
            console.print(f"[yellow]{job.cell} unreachable:[/] {escape(why)}")


def _drain(ray: Any, hub: Any) -> list[JSONObject]:
    """The progress events the nodes posted; none where the hub is gone (its node lost): the
    events only inform, and the cells still land from their own results."""
    try:
        events: list[JSONObject] = ray.get(hub.drain.remote(), timeout=NODES_EVERY_S * 5)
    except (ray.exceptions.RayError, TimeoutError):
        return []
    return events


def dispatch_cells(
    jobs: list[CellJob],
    run_dir: Path,
    console: Console,
    unreachable_after_s: float,
    on_landed: Callable[[CellJob], None] | None = None,
) -> None:
    """Submit every job, show progress, land each as it returns; fills each job's row."""
    ray = require_ray()
    hub = make_hub()
    remote = ray.remote(_task)
    events = EventLog(console, {job.cell: job.total for job in jobs})
    for job in jobs:
        assert job.order is not None
        job.submitted = time.time()
        job.ref = remote.options(num_cpus=0, max_retries=MAX_RETRIES, resources=job.needed).remote(
            job.order.to_json(), hub
        )
    by_ref = {job.ref: job for job in jobs}
    nodes = _alive_nodes(ray)
    checked = time.monotonic()
    try:
        while any(not job.row for job in jobs):
            pending = [job.ref for job in jobs if not job.row]
            ready, _ = ray.wait(pending, num_returns=1, timeout=POLL_S)
            events.handle(_drain(ray, hub))
            if time.monotonic() - checked >= NODES_EVERY_S or ready:
                nodes, checked = _alive_nodes(ray), time.monotonic()
            for ref in ready:
                job = by_ref[ref]
                if not job.row:
                    _finish(job, ray, run_dir, console, nodes)
                    if on_landed is not None:
                        on_landed(job)
            _check_unservable(jobs, ray, nodes, unreachable_after_s, console)
        events.handle(_drain(ray, hub))
    except KeyboardInterrupt:
        for job in jobs:
            if not job.row:
                ray.cancel(job.ref, force=False)
                job.row = {"status": "interrupted", "reason": "the head was interrupted"}
        raise CellInterrupted(
            f"interrupted: the cells landed so far are kept in {run_dir}; finish the matrix "
            f"with portbench matrix --engine ray --resume {run_dir}",
            run_dir=run_dir,
        ) from None
    for job in jobs:
        if job.cell in events.attempts:
            job.row.setdefault("attempts", events.attempts[job.cell])
