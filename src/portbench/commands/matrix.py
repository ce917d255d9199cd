"""``portbench matrix``: every cell this machine can reach, for one profile, in one run.

Cells that cannot run here are listed as such (in the terminal and in ``matrix.json``),
never silently dropped; a failing cell does not stop the others.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from portbench_runner.contract import member

from ..accelerators import Accelerator, is_present, load_accelerators
from ..cellrun import BenchRequest, new_run_dir, run_cell
from ..cluster.dispatch import DEFAULT_UNREACHABLE_AFTER_S
from ..errors import CellInterrupted, PortbenchError, UsageError
from ..images.accelerator_locks import not_pinned
from ..manifest import FRAMEWORKS
from ..plan import PlanOptions, check_label, timing_for_mode
from ..profiles import DEFAULT_PROFILE
from ..selection import split_selection
from ..writable import make_dir, require_writable

__all__ = ["reachable_accelerators", "register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("matrix", help="run every cell this machine can reach")
    parser.add_argument("--profile", default=DEFAULT_PROFILE)
    parser.add_argument("--frameworks", nargs="+", default=list(FRAMEWORKS))
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--run-dir", type=Path)
    parser.add_argument(
        "--label",
        help="a name for this run, of your choosing, kept in plan.json; the report shows it "
        "beside the cell (e.g. 'after driver update')",
    )
    parser.add_argument(
        "--timing",
        choices=("adaptive", "fixed"),
        default="adaptive",
        help="warm sampling: stop when the median is known to 2%% (adaptive), or spend the "
        "fixed budget",
    )
    parser.add_argument(
        "--functions",
        nargs="+",
        default=[],
        metavar="NAME",
        help="only these functions (each framework runs the ones its manifest lists)",
    )
    parser.add_argument(
        "--case", action="append", default=[], metavar="ID", help="only this case id (repeatable)"
    )
    cluster = parser.add_argument_group("across machines (--engine ray; docs/cluster.md)")
    cluster.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: the cells of this machine; ray: every cell the nodes of a Ray cluster serve",
    )
    cluster.add_argument("--address", help="the Ray cluster's head, HOST:PORT (default: auto)")
    cluster.add_argument(
        "--accelerators",
        nargs="+",
        metavar="ID",
        help="the accelerators to run (default: every one a live node advertises)",
    )
    cluster.add_argument(
        "--unreachable-after",
        type=float,
        default=DEFAULT_UNREACHABLE_AFTER_S,
        metavar="S",
        help="list a cell as unreachable once no live node could serve it for S seconds "
        "(default %(default).0f)",
    )
    cluster.add_argument(
        "--resume", type=Path, metavar="RUN", help="finish a matrix run made with --engine ray"
    )
    parser.set_defaults(func=_matrix)


def reachable_accelerators(
    table: dict[str, Accelerator],
) -> tuple[list[Accelerator], dict[str, str]]:
    """The most specific present id per flavor (gpu-h100 rather than gpu), and why others are out."""
    present: dict[str, tuple[Accelerator, str]] = {}
    out: dict[str, str] = {}
    for acc in table.values():
        ok, found = is_present(acc)
        if not ok:
            out[acc.id] = f"not present ({found})"
            continue
        current = present.get(acc.flavor)
        # A specific id (one with a device pattern) beats the generic one of its flavor.
        if current is None or (acc.device_match and not current[0].device_match):
            if current is not None:
                out[current[0].id] = f"covered by {acc.id}"
            present[acc.flavor] = (acc, found)
        else:
            out[acc.id] = f"covered by {current[0].id}"
    return [acc for acc, _ in present.values()], out


def _ray(args: argparse.Namespace, console: Console) -> int:
    from ..cluster.matrix_run import ray_matrix
    from ..profiles import check_profile

    check_profile(args.profile, "", "")
    if args.unreachable_after <= 0:
        raise UsageError("--unreachable-after takes a number of seconds above 0")
    rows = ray_matrix(args, console)
    _print_table(console, f"matrix {args.profile} on the cluster", rows)
    return 1 if any(r["status"] in ("failed", "incomplete") for r in rows) else 0


def _matrix(args: argparse.Namespace) -> int:
    console = Console()
    # Read with defaults: callers that build the namespace themselves predate these options.
    if getattr(args, "engine", "local") == "ray":
        return _ray(args, console)
    given = [
        flag
        for flag, name in (
            ("--address", "address"),
            ("--accelerators", "accelerators"),
            ("--resume", "resume"),
        )
        if getattr(args, name, None)
    ]
    if given:
        raise UsageError(
            f"{', '.join(given)} go with --engine ray; a local matrix runs this machine's cells"
        )
    reachable, unreachable = reachable_accelerators(load_accelerators())
    # Checked before the first cell builds its environment: a typo costs a second.
    label = check_label(args.label)
    shares = split_selection(
        args.frameworks, args.functions, args.case, reachable, args.profile, args.backend
    )
    run_dir = args.run_dir or new_run_dir()
    hint = "pass --run-dir with a directory you can write"
    require_writable(run_dir, hint)
    make_dir(run_dir, hint, exist_ok=True)
    cells: list[dict[str, object]] = []
    matrix_started = time.monotonic()
    for acc in reachable:
        for framework in args.frameworks:
            cell = f"{framework}/{acc.id}/{args.profile}"
            share = shares.get(framework)
            if share is None:
                reason = "none of --functions/--case is in its manifest"
                cells.append({"cell": cell, "status": "not selected", "reason": reason})
                continue
            unpinned = not_pinned(args.profile, framework, acc.flavor)
            if unpinned:  # jax on an Intel GPU: no cell to run, and no failure either
                cells.append({"cell": cell, "status": "not pinned", "reason": unpinned})
                continue
            options = PlanOptions(
                functions=share.functions,
                cases=share.cases,
                timing=timing_for_mode(args.timing),
                label=label,
            )
            request = BenchRequest(framework, acc.id, args.profile, args.backend, options, run_dir)
            started = time.monotonic()
            try:
                result = run_cell(request, console)
                cells.append(
                    {
                        "cell": cell,
                        "status": "complete",
                        "functions": result.function_counts,
                        "cases": result.case_counts,
                        # The cell alone (cases), and with its environment's build or reuse.
                        "cell_wall_s": round(result.wall_s, 3),
                        "wall_s": round(time.monotonic() - started, 3),
                    }
                )
            except CellInterrupted:
                raise  # Ctrl-C stops the matrix; the CLI names the run directory to resume
            except PortbenchError as exc:
                console.print(f"[red]{cell} failed:[/] {escape(str(exc))}")
                for line in exc.log_tail():
                    console.print(line, style="dim", markup=False, emoji=False)
                cells.append(
                    {
                        "cell": cell,
                        "status": "failed",
                        "reason": str(exc),
                        "wall_s": round(time.monotonic() - started, 3),
                    }
                )
    for acc_id, why in unreachable.items():
        for framework in args.frameworks:
            cells.append(
                {
                    "cell": f"{framework}/{acc_id}/{args.profile}",
                    "status": "unreachable",
                    "reason": why,
                }
            )
    total_s = time.monotonic() - matrix_started
    document = {
        "schema": 1,
        "kind": "matrix",
        "profile": args.profile,
        "timing": args.timing,
        "wall_s": round(total_s, 3),
        "cells": cells,
    }
    (run_dir / "matrix.json").write_text(json.dumps(document, indent=2))
    _print_table(console, f"matrix {args.profile} → {run_dir}: {total_s:.1f} s in all", cells)
    return 1 if any(c["status"] == "failed" for c in cells) else 0


def _print_table(console: Console, title: str, cells: list[dict[str, object]]) -> None:
    table = Table(title=title)
    for column in ("cell", "status", "functions pass/partial/complete/untested", "wall s", "why"):
        table.add_column(column)
    for row in cells:
        counts = member(row, "functions")
        text = (
            "/".join(str(counts.get(k)) for k in ("pass", "partial", "complete", "untested"))
            if counts
            else ""
        )
        wall_s = row.get("wall_s")
        wall = f"{wall_s:.1f}" if isinstance(wall_s, (int, float)) else ""
        why = str(row.get("reason") or "")
        if row.get("node"):
            why = f"node {row['node']}" + (f"; {why}" if why else "")
        table.add_row(str(row["cell"]), str(row["status"]), text, wall, escape(why[:80]))
    console.print(table)
