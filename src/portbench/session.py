"""One session of a compiled plan: lock the cell, stream the supervisor's records into it,
write the session line. ``run_cell`` uses it; so do tests and benchmarks, through
``python -m portbench.session --plan P --cell-dir D`` (the host backend)."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from .backends import Backend, CellLaunch, PreparedEnvironment
from .errors import PortbenchError
from .plan import plan_case_count, read_plan, write_plan
from .progress import CellProgress
from .results import CellWriter
from .results.safeio import write_new

__all__ = ["SessionResult", "main", "run_session"]


@dataclass(frozen=True)
class SessionResult:
    status: int
    """The supervisor's exit status (130: interrupted)."""
    ended: dict[str, Any]
    """The session line written to sessions.jsonl."""
    writer: CellWriter


def budget_s(plan: dict[str, Any]) -> float:
    """The host watchdog's limit for one session: every case's timeout and every restart."""
    cases = sum(float(c.get("timeout_s") or 900) for f in plan["functions"] for c in f["cases"])
    timeouts = plan.get("timeouts") or {}
    starts = float(timeouts.get("worker_start_s", 600)) * (2 + int(plan.get("max_restarts", 3)))
    return cases + starts


def _host_crash_record(plan: dict[str, Any], case_id: str, status: int) -> dict[str, Any] | None:
    """The record of the case in flight when the cell's supervisor itself died."""
    for function in plan["functions"]:
        for case in function["cases"]:
            if case["id"] != case_id:
                continue
            record: dict[str, Any] = {
                "schema": 2,
                "kind": "case",
                "cell": plan["cell"],
                "framework": plan["framework"],
                "accelerator": plan["accelerator"]["id"],
                "profile": plan["profile"],
                "function": function["function"],
                "study_test_file": function.get("study_test_file"),
                "case": case_id,
                "case_name": case["name"],
                "case_file": function["case_file"],
                "case_file_sha256": function.get("case_file_sha256"),
                "seed": case["seed"],
                "outcome": "fail",
                "stage": "call",
                "category": "crash",
                "rule": None,
                "reason": f"the cell's supervisor died (exit {status}) while this case ran",
                "error": None,
                "exit": {"code": status, "signal": None},
                "stderr_tail": None,
                "timing": None,
                "evidence": None,
                "output": None,
                "strays_killed": 0,
                "worker": {"pid": None, "index": 0},
                "started_at": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
                "duration_s": 0.0,
                "rerun": f"{plan['rerun_prefix']} --case {case_id}",
            }
            census = function.get("census")
            if isinstance(census, dict):
                # A census case's record says which database entry it stands for, as the
                # supervisor's records do (schema 3): without it the report cannot place
                # the crash in its operator's row.
                record.update(schema=3, source=census_source(census), census=None)
            return record
    return None


def census_source(census: dict[str, Any]) -> dict[str, Any]:
    """Where a census case's inputs came from (the plan's census entry of its function):
    the same fields the supervisor writes (``_census_source`` in the runner)."""
    return {key: census.get(key) for key in ("database", "version", "entry", "op", "variant")}


def run_session(
    backend: Backend,
    prepared: PreparedEnvironment,
    plan: dict[str, Any],
    cell_dir: Path,
    console: Console,
    new: bool,
) -> SessionResult:
    """Run the cases of ``plan`` not yet recorded in ``cell_dir`` (which exists)."""
    with CellWriter(cell_dir, plan) as writer:
        if new:
            write_plan(plan, cell_dir / "plan.json")
        if writer.previous_summary:
            console.print(f"[yellow]note:[/] {writer.previous_summary}")
        logs = cell_dir / "logs"
        logs.mkdir(exist_ok=True)
        todo_path = logs / f"todo-{len(list(logs.glob('todo-*.json')))}.json"
        write_new(todo_path, writer.todo)
        launch = CellLaunch(
            cell_dir, cell_dir / "plan.json", todo_path, writer.need_env, budget_s(plan)
        )
        total = plan_case_count(plan)
        with CellProgress(console, str(plan["cell"]), total, len(writer.recorded)) as progress:
            writer.on_record = progress.record
            writer.on_start = progress.case_started
            status = backend.run_cell(prepared, launch, writer)
        host_reason = None
        if writer.session is None and writer.inflight is not None and status != 130:
            record = _host_crash_record(plan, writer.inflight, status)
            if record is not None:
                writer.store_host_record(record)
                host_reason = (
                    f"the cell's supervisor died (exit {status}) while {writer.inflight} ran; "
                    "that case is recorded as a crash, resume to finish"
                )
        ended = writer.finish(status, host_reason)
    return SessionResult(status, ended, writer)


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
    console = Console(stderr=True, highlight=False)
    try:
        plan = read_plan(args.plan)
        new = not (args.cell_dir / "plan.json").exists()
        args.cell_dir.mkdir(parents=True, exist_ok=True)
        backend = make_backend("host", console=console, python=args.python)
        prepared = backend.prepare(plan["framework"], "cpu", "host")
        result = run_session(backend, prepared, plan, args.cell_dir, console, new)
    except PortbenchError as exc:
        console.print(f"error: {exc}", markup=False, soft_wrap=True)
        return exc.exit_code
    if result.writer.failure is not None:
        console.print(f"error: {result.writer.failure}", markup=False, soft_wrap=True)
        return 5
    if result.ended.get("reason"):
        status = result.ended.get("status")
        console.print(f"{status}: {result.ended['reason']}", markup=False, soft_wrap=True)
    return result.status


if __name__ == "__main__":
    sys.exit(main())
