"""What a node does for one cell: build or reuse its environment, run it, pack the result.

This is the body of the Ray task; it imports no Ray, so it is tested as a plain function.
The head sends a :class:`CellOrder`: the plan it compiled, whole (so every plan option,
the label included, reaches the node), the backend to choose, and the records the head
keeps of the cell (a resume). The node checks that its case files hash as the plan says
(else it refuses the cell in one sentence) and runs the plan exactly as ``bench`` runs a
cell (``run_cell``, the same backends), in a folder of its own work directory; the folder
is packed as one archive for the head and then removed: the head's copy is the one that
counts. Progress (cases recorded so far) is posted to the head while the cell runs.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from portbench_runner.contract import (
    CaseRecord,
    ContractError,
    Fields,
    JSONObject,
    Plan,
    PlanInvalid,
)

from ..accelerators import get_accelerator
from ..cellrun import BenchRequest, run_cell
from ..errors import PortbenchError
from ..paths import state_dir
from .archive import pack_cell

__all__ = ["CellOrder", "NodeIdentity", "Post", "node_identity", "serve_cell"]

#: How often the node looks at the cell's records to tell the head how far it is.
PROGRESS_EVERY_S = 1.0
#: Bounds on what a node says about itself (the head bounds it again).
REASON_CHARS = 600

Post = Callable[[JSONObject], None]


@dataclass(frozen=True)
class CellOrder:
    """What the head sends a node for one cell: the compiled plan, the backend to choose
    there (``auto``: the node's best), and the records of the cell it keeps (a resume)."""

    run_id: str
    plan: Plan
    backend: str
    seed_records: tuple[CaseRecord, ...] = ()

    @property
    def cell(self) -> str:
        return self.plan.cell

    def to_json(self) -> JSONObject:
        return {
            "schema": 1,
            "kind": "cell-order",
            "run_id": self.run_id,
            "backend": self.backend,
            "plan": self.plan.to_json(),
            "seed_records": [r.to_json() for r in self.seed_records],
        }

    @classmethod
    def from_json(cls, obj: object) -> CellOrder:
        """The order the head sent; :class:`PlanInvalid` says in one sentence what is wrong."""
        f = Fields(obj, "the head's order", PlanInvalid)
        run_id = f.text("run_id", 200)
        if not _NAME.match(run_id):
            raise f.fail(f"the run id {run_id[:40]!r} is not a folder name")
        plan = Plan.from_json(f.raw("plan"), "the head's plan")
        try:
            seeds = tuple(CaseRecord.from_json(r) for r in f.items("seed_records"))
        except ContractError as exc:
            raise f.fail(f"a record to resume from is not valid ({exc})") from None
        return cls(run_id, plan, f.text("backend", 40), seeds)


@dataclass(frozen=True)
class NodeIdentity:
    """Who this node is: set by ``portbench node start`` in the environment of its processes."""

    name: str
    work_dir: Path
    engines: tuple[str, ...]

    def to_json(self) -> JSONObject:
        return {"name": self.name, "hostname": socket.gethostname(), "engines": list(self.engines)}


def node_identity(environ: Mapping[str, str] = os.environ) -> NodeIdentity:
    name = environ.get("PORTBENCH_NODE_NAME") or socket.gethostname()
    work = environ.get("PORTBENCH_NODE_DIR") or str(state_dir() / "node" / name)
    engines = tuple(e for e in environ.get("PORTBENCH_NODE_ENGINES", "").split(",") if e)
    return NodeIdentity(name, Path(work), engines)


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$")


def _count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as handle:
            return sum(1 for line in handle if line.strip())
    except OSError:
        return 0


class _Watcher(threading.Thread):
    """Posts the number of recorded cases whenever it changes (the node's own files)."""

    def __init__(self, results: Path, post: Post, base: JSONObject) -> None:
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


def _request(order: CellOrder, work: Path) -> BenchRequest:
    """The ``bench`` request of the cell the head ordered: its plan, run as it is."""
    plan = order.plan
    accelerator = get_accelerator(plan.accelerator.id)
    return BenchRequest(
        plan.framework,
        accelerator.id,
        plan.profile,
        order.backend,
        run_dir=work,
        seed_records=order.seed_records,
        plan=plan,
    )


def serve_cell(
    sent: JSONObject,
    post: Post,
    identity: NodeIdentity | None = None,
) -> JSONObject:
    """Run the cell the head's order (``CellOrder.to_json``) names here; what the head needs
    back (archive included)."""
    task_started = time.time()
    identity = identity or node_identity()
    try:
        order = CellOrder.from_json(sent)
    except PlanInvalid as exc:
        # The head's order does not read: refused in one sentence, nothing run.
        plan = sent.get("plan")
        named = plan.get("cell") if isinstance(plan, dict) else None
        return {
            "schema": 1,
            "cell": str(named)[:200],
            "status": "failed",
            "reason": str(exc)[:REASON_CHARS],
            "archive": None,
        }
    cell = order.cell
    base: JSONObject = {"cell": cell, "attempt": secrets.token_hex(3), "node": identity.name}
    post({**base, "kind": "started", "t": task_started})
    removed = _remove_leftovers(identity)
    work = identity.work_dir / "cells" / f"{order.run_id}-{base['attempt']}"
    work.mkdir(parents=True)
    status, reason = "complete", None
    cell_started = cell_ended = time.time()
    archive = None
    try:
        with open(work / "console.log", "w", encoding="utf-8") as log:
            console = Console(file=log, width=120, color_system=None, highlight=False)
            try:
                request = _request(order, work)
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
