"""``portbench mutate``: run a cell's cases against mutants and report the kill rates.

A mutation run is a cell mode through the same backends as ``bench``; its cell directory
lives under ``results/mutation/<run-id>/`` with a plan marked as a mutation run, so its
records are never read as the cell's results (the report leaves it out, ingest refuses it).
"""

from __future__ import annotations

import argparse
import secrets
import shlex
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from portbench_runner.contract import MutationSettings
from portbench_runner.mutation import DESCRIPTIONS
from portbench_runner.mutation.kinds import DEFAULT_FLOAT_SCALE, split_mutant_id

from ..backends import BACKENDS, BuildOptions
from ..cellrun import execute_cell, open_cell
from ..errors import UsageError
from ..manifest import FRAMEWORKS, load_manifest
from ..paths import results_dir
from ..plan import DEFAULT_CASE_TIMEOUT_S, DEFAULT_SEED, PlanOptions, compile_plan
from ..profiles import DEFAULT_PROFILE
from ..report.load import find_cells
from ..results.safeio import write_new
from ..writable import make_dir, require_writable
from .plan import check_kinds, mutation_plan
from .render import kind_table, markdown, summary_json
from .summary import summarize

__all__ = ["mutation_runs_dir", "register"]

SURVIVORS_PRINTED = 20


def mutation_runs_dir() -> Path:
    """Where mutation runs go: beside the cells' runs, never inside one."""
    return results_dir() / "mutation"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mutate",
        help="run a cell's passing cases against mutants of their measured call (kill rates)",
        description="Each case runs unmutated, then once per mutant: "
        + "; ".join(f"{k}: {d}" for k, d in DESCRIPTIONS.items())
        + ". A mutant the case still passes under survives.",
    )
    parser.add_argument("--framework", help=f"one of {', '.join(FRAMEWORKS)}")
    parser.add_argument("--accelerator", default="cpu", help="default: cpu")
    parser.add_argument("--profile", help=f"default: {DEFAULT_PROFILE}")
    parser.add_argument("--backend", help=f"auto (default) or one of {', '.join(BACKENDS)}")
    parser.add_argument("--python", help="host profile: the interpreter to run the cell with")
    parser.add_argument("--functions", nargs="+", default=[], metavar="NAME")
    parser.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="only this case (a case id, or a mutant's id '<case>.mutant-<kind>')",
    )
    parser.add_argument(
        "--kinds", nargs="+", default=[], metavar="KIND", help=f"of {', '.join(DESCRIPTIONS)}"
    )
    parser.add_argument(
        "--float-scale",
        type=float,
        default=DEFAULT_FLOAT_SCALE,
        help="float's move in units of the dtype's tolerance (default: %(default)g)",
    )
    parser.add_argument("--timeout", type=float, help="seconds per case run")
    parser.add_argument("--run-dir", type=Path, help="default: results/mutation/<new id>")
    parser.add_argument(
        "--summary",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="print the kill rates of mutation runs already made (Markdown), run nothing",
    )
    parser.set_defaults(func=_mutate)


def _cases(ids: list[str], kinds: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """Case ids as the manifest knows them, and kinds a mutant's id names."""
    cases, named = [], list(kinds)
    for given in ids:
        case, kind = split_mutant_id(given)
        cases.append(case)
        if case != given and kind not in named:
            named.append(kind)
    return tuple(cases), named


def _run(args: argparse.Namespace, console: Console) -> Path:
    if not args.framework:
        raise UsageError("--framework is needed (e.g. portbench mutate --framework jax)")
    if args.float_scale <= 1:
        raise UsageError(
            f"--float-scale {args.float_scale:g} would move floats within their tolerance; "
            "pass a number above 1"
        )
    profile = args.profile or DEFAULT_PROFILE
    backend, cell = open_cell(
        args.framework,
        args.accelerator,
        profile,
        args.backend or "auto",
        args.python,
        BuildOptions(),
        console,
    )
    cases, kinds = _cases(args.case, args.kinds)
    chosen = check_kinds(kinds)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    run_dir = args.run_dir or mutation_runs_dir() / f"{stamp}-{secrets.token_hex(2)}"
    cell_dir = run_dir / cell.dir_name
    if cell_dir.exists():
        raise UsageError(f"{cell_dir} exists already; pass another --run-dir")
    from ..rules import load_rules

    settings = MutationSettings(chosen, cell.cell_id, {"float_scale": args.float_scale})
    options = PlanOptions(
        functions=tuple(args.functions),
        cases=cases,
        seed=DEFAULT_SEED,
        case_timeout_s=args.timeout or DEFAULT_CASE_TIMEOUT_S,
        timing={"mode": "none"},
        differential=False,
        cell_budget_s=None,
        mutation=settings,
    )
    base = compile_plan(cell, load_manifest(args.framework), load_rules(args.framework), options)
    plan = mutation_plan(base, chosen, settings)
    plan = replace(plan, rerun_prefix=cell.rerun_prefix("mutate"))
    hint = "pass --run-dir with a directory you can write"
    require_writable(cell_dir, hint)
    prepared = backend.prepare(args.framework, cell.accelerator.flavor, profile)
    plan = plan.in_environment(prepared.cell_environment)
    make_dir(cell_dir, hint)
    execute_cell(cell.cell_id, backend, prepared, plan, cell_dir, False, console)
    return run_dir


def _mutate(args: argparse.Namespace) -> int:
    console = Console(highlight=False, soft_wrap=True)
    if args.summary:
        cells = find_cells(list(args.summary))
        sys.stdout.write(markdown(summarize(cells)))
        return 0
    run_dir = _run(args, console)
    summary = summarize(find_cells([run_dir]))
    command = shlex.join(["portbench", "mutate", *sys.argv[2:]])
    write_new(run_dir / "kill-rates.json", summary_json(summary))
    (run_dir / "kill-rates.md").write_text(markdown(summary, command), encoding="utf-8")
    console.print(kind_table(summary))
    for survivor in summary.survivors[:SURVIVORS_PRINTED]:
        line = f"survived: {survivor.case} ({survivor.kind}) {survivor.note}"
        console.print(escape(line.rstrip()))
    more = len(summary.survivors) - SURVIVORS_PRINTED
    if more > 0:
        console.print(f"... and {more} more survivors in {run_dir / 'kill-rates.md'}")
    console.print(f"kill rates: {run_dir / 'kill-rates.md'}")
    return 0
