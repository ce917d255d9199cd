"""The head's bookkeeping without a cluster: provenance, unreachable cells, progress lines."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from portbench.cluster import dispatch
from portbench.cluster.dispatch import CellJob, _check_unservable, _provenance
from portbench.cluster.hub import EventLog, ProgressHub
from portbench.cluster.resources import cell_resources

NODE_ID = "ab" * 28


def test_the_node_name_is_the_one_ray_knows_not_the_one_claimed() -> None:
    nodes = {
        NODE_ID: {
            "NodeManagerAddress": "127.0.0.1",
            "Resources": {"portbench-node:n2": 1.0, "accel:cpu": 1.0, "CPU": 1.0},
        }
    }
    result = {
        "ray_node_id": NODE_ID,
        "attempt": "c0ffee",
        "node": {"name": "n1", "hostname": "x" * 500, "engines": ["host"]},
    }
    node = _provenance(result, nodes)
    assert node["name"] == "n2" and node["address"] == "127.0.0.1"
    assert node["said_by_node"]["name"] == "n1" and len(node["said_by_node"]["hostname"]) == 128
    assert node["resources"] == ["accel:cpu", "portbench-node:n2"]
    forged = _provenance({"ray_node_id": "../../etc", "attempt": "../x", "node": "?"}, nodes)
    assert (
        forged["name"] == "unknown" and forged["ray_node_id"] is None and forged["attempt"] == "x"
    )


class _FakeRay:
    def __init__(self) -> None:
        self.cancelled: list[Any] = []

    def cancel(self, ref: Any, force: bool = False) -> None:
        self.cancelled.append(ref)


def test_a_cell_no_live_node_serves_is_unreachable_only_after_the_timeout(monkeypatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(dispatch.time, "monotonic", lambda: clock[0])
    ray = _FakeRay()
    t4 = CellJob("jax/gpu-t4/host", {}, cell_resources("gpu-t4", "host", "auto"), 1, ref="t4")
    cpu = CellJob("jax/cpu/host", {}, cell_resources("cpu", "host", "auto"), 1, ref="cpu")
    nodes = {"a": {"Resources": {"portbench:slot": 1.0, "accel:cpu": 1.0, "profile:host": 1.0}}}
    console = Console(file=io.StringIO())
    _check_unservable([t4, cpu], ray, nodes, 30.0, console)
    clock[0] += 29.0
    _check_unservable([t4, cpu], ray, nodes, 30.0, console)
    assert not t4.row and ray.cancelled == []
    clock[0] += 1.0
    _check_unservable([t4, cpu], ray, nodes, 30.0, console)
    assert t4.row["status"] == "unreachable" and "accel:gpu-t4" in t4.row["reason"]
    assert ray.cancelled == ["t4"] and not cpu.row
    # a node that can serve it shows up: the wait starts over
    late = CellJob("jax/gpu-t4/x", {}, cell_resources("gpu-t4", "host", "auto"), 1, ref="late")
    _check_unservable([late], ray, nodes, 30.0, console)
    clock[0] += 20.0
    nodes["b"] = {"Resources": {**t4.needed}}
    _check_unservable([late], ray, nodes, 30.0, console)
    assert late.unservable_since is None


def test_progress_lines_come_from_known_events_only_and_are_escaped() -> None:
    out = io.StringIO()
    log = EventLog(Console(file=out, width=200), {"jax/cpu/host": 4})
    hub = ProgressHub()
    for event in (
        {"cell": "jax/cpu/host", "kind": "started", "attempt": "aa", "node": "[red]n1", "t": 1.0},
        {"cell": "jax/cpu/host", "kind": "progress", "attempt": "aa", "node": "n1", "done": 2},
        {"cell": "jax/cpu/host", "kind": "progress", "attempt": "zz", "node": "n9", "done": 3},
        {"cell": "other/cpu/host", "kind": "started", "attempt": "bb", "node": "n2"},
        "not an event",
        {"cell": "jax/cpu/host", "kind": "started", "attempt": "cc", "node": "n2", "t": 2.0},
    ):
        hub.post(event)
    log.handle(hub.drain())
    text = out.getvalue()
    assert "started on node [red]n1" in text  # shown as text, not as markup
    assert "2/4 cases" in text and "n9" not in text and "other/cpu/host" not in text
    assert "started on node n2 (again" in text and log.attempts["jax/cpu/host"] == 2
    assert hub.drain() == []
