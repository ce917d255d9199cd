"""What a node does for one cell: build or reuse its environment, run it, pack the result.

This is the body of the Ray task; it imports no Ray, so it is tested as a plain function.
The cell runs exactly as ``bench`` runs it (``run_cell``, the same backends), in a folder
of the node's own work directory; the folder is packed as one archive for the head and
then removed: the head's copy is the one that counts. Progress (cases recorded so far) is
posted to the head while the cell runs.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from ..accelerators import get_accelerator
from ..cellrun import BenchRequest, run_cell
from ..errors import PortbenchError
from ..paths import state_dir
from ..plan import PlanOptions
from .archive import pack_cell

__all__ = ["NodeIdentity", "Post", "node_identity", "serve_cell"]

#: How often the node looks at the cell's records to tell the head how far it is.
PROGRESS_EVERY_S = 1.0
#: Bounds on what a node says about itself (the head bounds it again).
REASON_CHARS = 600

Post = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class NodeIdentity:
    """Who this node is: set by ``portbench node start`` in the environment of its processes."""

    name: str
    work_dir: Path
    engines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "hostname": socket.gethostname(), "engines": list(self.engines)}


def node_identity(environ: Mapping[str, str] = os.environ) -> NodeIdentity:
    name = environ.get("PORTBENCH_NODE_NAME") or socket.gethostname()
    work = environ.get("PORTBENCH_NODE_DIR") or str(state_dir() / "node" / name)
    engines = tuple(e for e in environ.get("PORTBENCH_NODE_ENGINES", "").split(",") if e)
    return NodeIdentity(name, Path(work), engines)


def _count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as handle:
            return sum(1 for line in handle if line.strip())
    except OSError:
        return 0


class _Watcher(threading.Thread):
    """Posts the number of recorded cases whenever it changes (the node's own files)."""

    def __init__(self, results: Path, post: Post, base: dict[str, Any]) -> None:
        super().__init__(daemon=True)
        self.results, self.post, self.base = results, post, base
        self.stopped = threading.Event()

    def run(self) -> None:
        last = -1
        while not self.stopped.wait(PROGRESS_EVERY_S):
            done = _count_lines(self.results)
            if done != last:
                last = done
                self.post({**self.base, "kind": "progress", "done": done, "t": time.time()})


def _remove_leftovers(identity: NodeIdentity) -> int:
    """Containers this node left running when a worker died: none of them serves a cell now
    (a node runs one cell at a time), so all go before the next cell starts."""
    if "docker" not in identity.engines:
        return 0
    from .node import remove_node_containers

    return remove_node_containers(identity.name)


def _request(spec: Mapping[str, Any], work: Path) -> BenchRequest:
    """The ``bench`` request of a cell the head sent (checked as ``bench`` checks its own)."""
    accelerator = get_accelerator(str(spec["accelerator"]))
    options = PlanOptions(
        functions=tuple(spec.get("functions") or ()),
        cases=tuple(spec.get("cases") or ()),
        timing=dict(spec.get("timing") or {}),
    )
    return BenchRequest(
        str(spec["framework"]),
        accelerator.id,
        str(spec["profile"]),
        str(spec["backend"]),
        options,
        run_dir=work,
        seed_records=tuple(spec.get("seed_records") or ()),
    )


def serve_cell(
    spec: Mapping[str, Any],
    post: Post,
    identity: NodeIdentity | None = None,
) -> dict[str, Any]:
    """Run the cell ``spec`` describes here; what the head needs back (archive included)."""
    task_started = time.time()
    identity = identity or node_identity()
    cell = str(spec["cell"])
    base = {"cell": cell, "attempt": secrets.token_hex(3), "node": identity.name}
    post({**base, "kind": "started", "t": task_started})
    removed = _remove_leftovers(identity)
    work = identity.work_dir / "cells" / f"{spec['run_id']}-{base['attempt']}"
    work.mkdir(parents=True)
    status, reason = "complete", None
    cell_started = cell_ended = time.time()
    archive = None
    try:
        with open(work / "console.log", "w", encoding="utf-8") as log:
            console = Console(file=log, width=120, color_system=None, highlight=False)
            try:
                request = _request(spec, work)
                dir_name = f"{request.framework}-{request.accelerator}-{request.profile}"
                watcher = _Watcher(work / dir_name / "results.jsonl", post, base)
                watcher.start()
                cell_started = time.time()
                try:
                    run_cell(request, console)
                finally:
                    watcher.stopped.set()
            except PortbenchError as exc:
                status, reason = "failed", str(exc)[:REASON_CHARS]
                console.print(f"error: {exc}", markup=False)
        cell_ended = time.time()
        cell_dir = next((p.parent for p in work.glob("*/plan.json")), None)
        if cell_dir is not None:
            (cell_dir / "logs").mkdir(exist_ok=True)
            shutil.copyfile(work / "console.log", cell_dir / "logs" / "node-console.log")
            archive = pack_cell(cell_dir)
        packed = time.time()
    finally:
        # The head's copy is the one that counts; a retry starts in a folder of its own.
        shutil.rmtree(work, ignore_errors=True)
    post({**base, "kind": "finished", "status": status, "t": packed})
    return {
        "schema": 1,
        "cell": cell,
        "attempt": base["attempt"],
        "status": status,
        "reason": reason,
        "archive": archive,
        "node": {**identity.to_json(), "containers_removed": removed},
        "times": {
            "task_started": task_started,
            "cell_started": cell_started,
            "cell_ended": cell_ended,
            "packed": packed,
        },
    }
