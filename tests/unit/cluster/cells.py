"""A cell directory as a node leaves it, made from a real plan and valid records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from portbench.plan import plan_from_case_files, write_plan
from portbench.results.safeio import dumps_strict
from portbench_runner.contract import Plan

from ..results.records import case_record

CASES = """
from portbench_runner.api import case

@case("a")
@case("b")
@case("c")
def run(ctx):
    ctx.measure(len, "x")
"""


def make_plan(root: Path) -> Plan:
    return plan_from_case_files(root / "src", {"demo": CASES})


def session_line(status: str = "complete", written: int = 3) -> dict[str, Any]:
    return {
        "schema": 2,
        "kind": "session",
        "cell": "python/cpu/host",
        "status": status,
        "reason": None,
        "records_written": written,
        "started_at": "2026-11-23T00:00:00+00:00",
        "ended_at": "2026-11-23T00:00:01+00:00",
    }


def node_cell(
    root: Path,
    plan: Plan,
    names: tuple[str, ...] = ("a", "b", "c"),
    status: str = "complete",
) -> Path:
    """``root/cell``: plan, env, the records of ``names``, one session line, a log."""
    cell = root / "cell"
    (cell / "logs").mkdir(parents=True)
    write_plan(plan, cell / "plan.json")
    (cell / "env.json").write_text(
        json.dumps({"schema": 1, "kind": "env", "host": {"hostname": "n1"}})
    )
    lines = [dumps_strict(case_record(plan, name)) for name in names]
    (cell / "results.jsonl").write_text("".join(line + "\n" for line in lines))
    (cell / "sessions.jsonl").write_text(dumps_strict(session_line(status, len(names))) + "\n")
    (cell / "logs" / "supervisor.log").write_text("fine\n")
    return cell
