"""One session of a compiled plan: lock the cell, stream the supervisor's records into it,
write the session line. ``run_cell`` uses it; so do tests and benchmarks, through
``python -m portbench.session --plan P --cell-dir D`` (the host backend)."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from portbench_runner.contract import Plan, SessionLine

from .backends import Backend, CellLaunch, PreparedEnvironment
from .errors import PortbenchError
from .interrupts import ignore_file_size_signal
from .plan import read_plan, write_plan
from .progress import CellProgress
from .results import CellWriter
from .results.safeio import write_new
from .resume import check_plan_unchanged

__all__ = ["SessionResult", "budget_s", "main", "run_session"]


@dataclass(frozen=True)
class SessionResult:
    status: int
    """The supervisor's exit status (130: interrupted)."""
    ended: SessionLine
    """The session line written to sessions.jsonl."""
    writer: CellWriter
    siblings: tuple[tuple[SessionLine, CellWriter], ...] = field(default=())
    """A predicted pass's other cells: each one's session line and writer."""


def budget_s(plan: Plan) -> float:
    """The host watchdog's limit for one session: every case's timeout and every restart."""
    cases = sum(plan.case_timeout(case) for case in plan.case_ids)
    return cases + plan.timeouts.worker_start_s * (2 + plan.max_restarts)


def run_session(
    backend: Backend,
    prepared: PreparedEnvironment,
    plan: Plan,
    cell_dir: Path,
    console: Console,
    new: bool,
    siblings: Sequence[tuple[Plan, Path]] = (),
) -> SessionResult:
    """Run the cases of ``plan`` not yet recorded in ``cell_dir`` (which exists). A
    predicted pass over several targets names its other cells (``plan.siblings()``, each
    with its directory, which exists): their records come in the same stream."""
    if not new:
        # A plan edited since its cell ran is refused before anything runs.
        check_plan_unchanged(cell_dir)
    with ExitStack() as stack:
        writer = stack.enter_context(CellWriter(cell_dir, plan))
        for sibling_plan, sibling_dir in siblings:
            sibling = stack.enter_context(CellWriter(sibling_dir, sibling_plan))
            writer.siblings[sibling_plan.cell] = sibling
            if new:
                write_plan(sibling_plan, sibling_dir / "plan.json")
        if new:
            write_plan(plan, cell_dir / "plan.json")
        if writer.previous_summary:
            console.print(f"[yellow]note:[/] {writer.previous_summary}", soft_wrap=True)
        logs = cell_dir / "logs"
        logs.mkdir(exist_ok=True)
        todo_path = logs / f"todo-{len(list(logs.glob('todo-*.json')))}.json"
        write_new(todo_path, writer.todo)
        launch = CellLaunch(
            cell_dir, cell_dir / "plan.json", todo_path, writer.need_env, budget_s(plan)
        )
        done = plan.case_count - len(writer.todo)
        with CellProgress(console, plan.cell, plan.case_count, done) as progress:
            writer.on_record = progress.record
            writer.on_start = progress.case_started
            status = backend.run_cell(prepared, launch, writer)
        host_reason = None
        if writer.session is None and status != 130:
            case = writer.record_dead_supervisor(status)
            if case is not None:
                host_reason = (
                    f"the cell's supervisor died (exit {status}) while {case} ran; that case is "
                    "recorded as a crash for now, and a resumed cell runs it again"
                )
        ended = writer.finish(status, host_reason)
        others = tuple(
            (sibling.finish(status, host_reason), sibling) for sibling in writer.siblings.values()
        )
    return SessionResult(status, ended, writer, others)


def main(argv: list[str] | None = None) -> int:
    """Run (or resume) a compiled plan in a cell directory on the host backend."""
    from .backends import make_backend

    parser = argparse.ArgumentParser(prog="python -m portbench.session", description=main.__doc__)
    parser.add_argument("--plan", type=Path, required=True)
    parser.add_argument("--cell-dir", type=Path, required=True)
    parser.add_argument("--python", default=None, help="the interpreter (default: this one)")
    args = parser.parse_args(argv)
    # SIGTERM ends the session as Ctrl-C does: the supervisor stops, what it sent is kept.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    ignore_file_size_signal()
    console = Console(stderr=True, highlight=False)
    try:
        plan = read_plan(args.plan)
        new = not (args.cell_dir / "plan.json").exists()
        args.cell_dir.mkdir(parents=True, exist_ok=True)
        backend = make_backend("host", console=console, python=args.python)
        prepared = backend.prepare(plan.framework, "cpu", "host")
        result = run_session(backend, prepared, plan, args.cell_dir, console, new)
    except PortbenchError as exc:
        console.print(f"error: {exc}", markup=False, soft_wrap=True)
        return exc.exit_code
    if result.writer.failure is not None:
        console.print(f"error: {result.writer.failure}", markup=False, soft_wrap=True)
        return 5
    if result.ended.reason:
        console.print(f"{result.ended.status}: {result.ended.reason}", markup=False, soft_wrap=True)
    return result.status


if __name__ == "__main__":
    sys.exit(main())
