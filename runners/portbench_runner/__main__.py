"""Entry point inside a cell:
``python -m portbench_runner {supervise,work,probe,enumerate,census-list}``."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from typing import List, Optional


def _todo(path: str) -> List[str]:
    """The case ids to run (a JSON list the host wrote), read within the document bounds."""
    from .contract import DOCUMENT, PlanInvalid, read_json

    try:
        with open(path, "rb") as handle:
            todo = read_json(handle.read(DOCUMENT.max_bytes + 1), DOCUMENT)
    except (OSError, ValueError) as exc:
        raise PlanInvalid(f"{path}: cannot read the list of cases to run ({exc})") from None
    if not isinstance(todo, list) or not all(isinstance(c, str) for c in todo):
        raise PlanInvalid(f"{path}: the list of cases to run must be a JSON list of case ids")
    return [str(c) for c in todo]


def _supervise(args: argparse.Namespace) -> int:
    from .contract import PlanInvalid, load_plan
    from .supervisor import Supervisor

    try:
        plan = load_plan(args.plan)
        todo = _todo(args.todo) if args.todo else None
    except PlanInvalid as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.parent:
        from .procs import die_with_parent

        die_with_parent(args.parent, signal.SIGTERM)
    if args.host_stdin:
        _stop_when_stdin_closes()
    # The records go to the host on stdout: nothing else of ours may print there.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    supervisor = Supervisor(
        plan,
        args.plan,
        args.scratch,
        todo=todo,
        collect_env=args.collect_env,
        python=args.python,
        out_fd=out_fd,
    )
    return supervisor.run()


def _stop_when_stdin_closes() -> None:
    """In a container, the host holds our stdin open through its attach and sends nothing:
    when it closes (the host died, however it died), SIGTERM ourselves, which ends the
    session as interrupted, as a host that stops the container would. A host that dies
    cannot stop the container, so this is how the cell notices within seconds."""
    import threading

    def watch() -> None:
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="host-stdin", daemon=True).start()


def _work(args: argparse.Namespace) -> int:
    from .worker import run_worker

    # The pipe is ours alone: children the framework spawns must not hold it open.
    os.set_inheritable(args.pipe, False)
    return run_worker(args.plan, args.pipe, args.collect_env, args.parent)


def _probe(args: argparse.Namespace) -> int:
    from .probe import probe

    json.dump(probe(args.frameworks), sys.stdout)
    sys.stdout.write("\n")
    return 0


def _enumerate(rest: List[str]) -> int:
    from . import enumerate_api

    return int(enumerate_api.main(rest))


def _census_list(rest: List[str]) -> int:
    from .census import listing

    return int(listing.main(rest))


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["enumerate"]:
        return _enumerate(argv[1:])
    if argv[:1] == ["census-list"]:
        return _census_list(argv[1:])
    parser = argparse.ArgumentParser(prog="portbench_runner")
    sub = parser.add_subparsers(dest="command", required=True)
    sup = sub.add_parser(
        "supervise", help="run a cell's plan; its records go to stdout for the host to store"
    )
    sup.add_argument("--plan", required=True)
    sup.add_argument("--scratch", required=True, help="folder for the workers' logs")
    sup.add_argument("--todo", default=None, help="JSON list of the case ids to run (default: all)")
    sup.add_argument("--collect-env", action="store_true", help="report the cell's environment")
    sup.add_argument("--python", default=None, help="interpreter for workers (default: this one)")
    sup.add_argument("--parent", type=int, default=0, help="stop when this process (the host) dies")
    sup.add_argument(
        "--host-stdin", action="store_true", help="stop when stdin closes (the host's attach)"
    )
    sup.set_defaults(func=_supervise)
    work = sub.add_parser("work", help="internal: a worker started by the supervisor")
    work.add_argument("--plan", required=True)
    work.add_argument("--pipe", type=int, required=True)
    work.add_argument("--parent", type=int, default=0, help="the supervisor's pid")
    work.add_argument("--collect-env", action="store_true")
    work.set_defaults(func=_work)
    probe = sub.add_parser("probe", help="print what this interpreter has, as JSON")
    probe.add_argument("frameworks", nargs="*", default=["torch", "tensorflow", "jax"])
    probe.set_defaults(func=_probe)
    sub.add_parser("enumerate", help="list a framework's public API (see portbench enumerate)")
    sub.add_parser("census-list", help="list a framework's operator database (portbench census)")
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
