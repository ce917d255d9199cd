"""``portbench node start|stop|status``: this machine as a node of a Ray cluster."""

from __future__ import annotations

import argparse
import shlex
import socket
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from portbench_runner.contract import member

from ..accelerators import load_accelerators
from ..cluster.node import (
    NODE_LABEL,
    default_work_dir,
    node_pids,
    read_state,
    start_node,
    stop_node,
)
from ..cluster.resources import ENGINES, NodeCapabilities, check_node_name, detect_capabilities
from ..errors import UsageError
from ..profiles import PROFILES

__all__ = ["register"]


def register(subparsers: Any) -> None:
    node = subparsers.add_parser("node", help="join this machine to a Ray cluster as a node")
    actions = node.add_subparsers(dest="node_command", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="start a node (or the head) and advertise what it has")
    where = start.add_mutually_exclusive_group(required=True)
    where.add_argument("--head", action="store_true", help="start a new cluster here")
    where.add_argument("--address", help="join the cluster whose head is at HOST:PORT")
    start.add_argument("--port", type=int, default=6379, help="the head's port (--head)")
    _name_options(start)
    start.add_argument(
        "--engines",
        nargs="+",
        choices=ENGINES,
        help="advertise only these (default: all that answer)",
    )
    start.add_argument(
        "--profiles", nargs="+", choices=PROFILES, help="advertise only these profiles"
    )
    start.add_argument(
        "--no-cells",
        action="store_true",
        help="serve no cells (a head that only schedules and runs the matrix)",
    )
    start.add_argument("--num-cpus", type=int, help="Ray's CPU count for this node")
    start.add_argument("--node-ip-address", help="the address Ray binds to (e.g. 127.0.0.1)")
    start.add_argument("--temp-dir", help="Ray's folder for sockets and logs (head only)")
    start.add_argument("--block", action="store_true", help="stay in the foreground")
    start.add_argument(
        "--ray-arg", action="append", default=[], metavar="ARG", help="passed on to ray start"
    )
    start.add_argument("--dry-run", action="store_true", help="show the ray start command only")
    start.set_defaults(func=_start)
    stop = actions.add_parser("stop", help="end this node's processes and remove its containers")
    _name_options(stop)
    stop.set_defaults(func=_stop)
    status = actions.add_parser("status", help="what this node advertises, and the cluster's nodes")
    _name_options(status)
    status.add_argument("--address", help="also list the nodes of the cluster at HOST:PORT")
    status.set_defaults(func=_status)


def _name_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", help="the node's name (default: this machine's host name)")
    parser.add_argument("--work-dir", type=Path, help="where the node keeps cells while they run")


def _name(args: argparse.Namespace) -> tuple[str, Path]:
    name = check_node_name(args.name or socket.gethostname().split(".")[0])
    return name, args.work_dir or default_work_dir(name)


def _start(args: argparse.Namespace) -> int:
    console = Console()
    name, work_dir = _name(args)
    if args.no_cells:
        caps = NodeCapabilities(name, (), (), ())
    else:
        caps = detect_capabilities(name, load_accelerators(), args.engines, args.profiles)
    if not caps.engines and not args.no_cells:
        raise UsageError(f"node {name} has no engine that can run a cell; see portbench doctor")
    extra = list(args.ray_arg)
    for flag, value in (
        ("--num-cpus", args.num_cpus),
        ("--node-ip-address", args.node_ip_address),
        ("--temp-dir", args.temp_dir),
    ):
        if value is not None:
            extra += [flag, str(value)]
    if args.block:
        extra.append("--block")
    argv, removed = start_node(
        caps, work_dir, args.head, args.address, args.port, extra, args.dry_run
    )
    table = Table(title=f"node {name}" + (" (head)" if args.head else ""))
    table.add_column("advertises")
    table.add_column("")
    table.add_row("accelerators", ", ".join(caps.accelerators))
    table.add_row("engines", ", ".join(caps.engines))
    table.add_row("profiles", ", ".join(caps.profiles))
    table.add_row("work directory", str(work_dir))
    console.print(table)
    if args.dry_run:
        console.print(shlex.join(argv), markup=False, soft_wrap=True)
        return 0
    if removed:
        console.print(f"removed {removed} container(s) node {name} had left behind")
    joined = f"started the cluster on port {args.port}" if args.head else f"joined {args.address}"
    console.print(f"node {escape(name)} {escape(joined)}")
    return 0


def _stop(args: argparse.Namespace) -> int:
    name, _ = _name(args)
    ended, removed = stop_node(name)
    if not ended and not removed:
        Console().print(f"node {escape(name)} has no process running here")
        return 0
    Console().print(
        f"node {escape(name)}: {ended} process(es) ended, {removed} container(s) removed"
    )
    return 0


def _status(args: argparse.Namespace) -> int:
    console = Console()
    name, work_dir = _name(args)
    state = read_state(work_dir)
    pids = node_pids(name)
    if state is None:
        console.print(f"node {escape(name)}: never started here (no {work_dir / 'node.json'})")
    else:
        resources = ", ".join(sorted(member(state, "resources")))
        running = f"{len(pids)} process(es) running" if pids else "not running"
        console.print(f"node {escape(name)}: {running}; advertises {escape(resources)}")
    if args.address:
        from ..cluster.dispatch import connect

        ray = connect(args.address)
        table = Table(title=f"cluster at {args.address}")
        for column in ("node", "address", "alive", "portbench resources"):
            table.add_column(column)
        for node in ray.nodes():
            res = node.get("Resources", {})
            names = [k.split(":", 1)[1] for k in res if k.startswith("portbench-node:")]
            ours = ", ".join(sorted(k for k in res if ":" in k and not k.startswith("node:")))
            table.add_row(
                ", ".join(names) or "-",
                str(node.get("NodeManagerAddress")),
                "yes" if node.get("Alive") else "no",
                ours,
            )
        console.print(table)
        ray.shutdown()
    console.print(f"containers are labelled {NODE_LABEL}={escape(name)}")
    return 0
