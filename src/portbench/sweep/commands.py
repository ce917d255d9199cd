"""``portbench sweep``: one cell per release of a framework, in one run directory."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..backends import BACKENDS, BuildOptions
from ..commands.bench import timing_settings
from ..errors import UsageError
from ..manifest import FRAMEWORKS
from ..plan import DEFAULT_CASE_TIMEOUT_S, DEFAULT_CELL_BUDGET_S, DEFAULT_SEED, PlanOptions
from ..releases.spec import parse_release
from .run import SweepOutcome, run_sweep, start_sweep
from .state import SweepPlan, read_sweep_plan

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sweep",
        help="one cell per release of a framework (portability along the version axis)",
    )
    parser.add_argument("--framework", choices=FRAMEWORKS)
    parser.add_argument(
        "--accelerator", default=None, help="an id of images/accelerators.toml (default: cpu)"
    )
    parser.add_argument("--from", dest="low", metavar="VERSION", help="the oldest release to run")
    parser.add_argument("--to", dest="high", metavar="VERSION", help="the newest release to run")
    parser.add_argument(
        "--releases",
        nargs="+",
        default=[],
        metavar="VERSION",
        help="these releases instead of the default list (docs/releases.md)",
    )
    parser.add_argument(
        "--no-timing", action="store_true", help="outcomes and cold calls only (much faster)"
    )
    parser.add_argument(
        "--census", action="store_true", help="run the framework's own operator database instead"
    )
    parser.add_argument(
        "--keep-images",
        action="store_true",
        help="keep each release's image after its cell (default: removed once the cell landed)",
    )
    parser.add_argument(
        "--functions", nargs="+", default=[], metavar="NAME", help="only these functions"
    )
    parser.add_argument(
        "--backend", default=None, help=f"auto (default) or one of {', '.join(BACKENDS[:2])}"
    )
    parser.add_argument(
        "--run-dir", type=Path, help="the run directory (default: results/<new id>)"
    )
    parser.add_argument(
        "--resume", type=Path, metavar="DIR", help="finish a sweep that stopped (its run directory)"
    )
    parser.add_argument("--base", help="docker: base image of every release's image")
    parser.add_argument("--ca-bundle", type=Path, help="CA bundle for pip behind a TLS proxy")
    parser.set_defaults(func=_sweep)


def _plan(args: argparse.Namespace) -> SweepPlan:
    from ..releases.defaults import select_releases

    if args.framework is None:
        raise UsageError(
            "--framework is needed for a new sweep (e.g. portbench sweep --framework jax "
            "--no-timing); to finish one that stopped, pass --resume RUN_DIR alone"
        )
    if args.backend == "host":
        raise UsageError("a sweep installs each release: use --backend docker or venv, not host")
    framework = args.framework
    listed = [parse_release(v, framework) for v in args.releases]
    low = parse_release(args.low, framework) if args.low else None
    high = parse_release(args.high, framework) if args.high else None
    releases = select_releases(framework, listed or None, low, high)
    return SweepPlan(
        framework=framework,
        accelerator=args.accelerator or "cpu",
        releases=tuple(releases),
        kind="census" if args.census else "bench",
        timing=not args.no_timing,
        functions=tuple(args.functions),
        keep_images=args.keep_images,
        backend=args.backend or "auto",
    )


def _options(plan: SweepPlan) -> PlanOptions:
    return PlanOptions(
        functions=plan.functions,
        seed=DEFAULT_SEED,
        case_timeout_s=DEFAULT_CASE_TIMEOUT_S,
        timing=timing_settings(None, not plan.timing),
        cell_budget_s=DEFAULT_CELL_BUDGET_S,
    )


def _summary(outcome: SweepOutcome, plan: SweepPlan) -> Table:
    table = Table(title=f"sweep of {plan.framework} on {plan.accelerator}: {outcome.wall_s:.0f} s")
    for column in ("release", "status", "cell", "wall s", "image"):
        table.add_column(column)
    for release in plan.releases:
        line = outcome.settled.get(release.pin)
        if line is None:
            table.add_row(release.pin, "not run", "", "", "")
            continue
        image = line.image
        size = image.get("bytes")
        shown = (
            f"{size / 1e6:.0f} MB, built in {image.get('build_s')} s"
            if isinstance(size, int) and image.get("built")
            else (f"{size / 1e6:.0f} MB, reused" if isinstance(size, int) else "")
        )
        table.add_row(
            release.pin,
            line.status,
            line.cell or escape((line.reason or "")[:70]),
            "" if line.wall_s is None else f"{line.wall_s:.0f}",
            shown,
        )
    return table


def _sweep(args: argparse.Namespace) -> int:
    console = Console()
    build = BuildOptions(args.base, args.ca_bundle)
    if args.resume is not None:
        given = [
            flag
            for flag, value in (
                ("--framework", args.framework),
                ("--from", args.low),
                ("--to", args.high),
                ("--releases", args.releases),
                ("--no-timing", args.no_timing),
                ("--census", args.census),
                ("--keep-images", args.keep_images),
                ("--functions", args.functions),
                ("--run-dir", args.run_dir),
            )
            if value not in (None, [], False)
        ]
        if given:
            raise UsageError(
                f"{', '.join(given)} cannot go with --resume: a resumed sweep runs what its "
                "sweep.json says; drop them"
            )
        run_dir = args.resume
        plan = read_sweep_plan(run_dir)
    else:
        plan = _plan(args)
        run_dir = start_sweep(plan, args.run_dir)
    console.print(
        f"sweep of {plan.framework} on {plan.accelerator}: "
        f"{', '.join(r.version for r in plan.releases)} -> {run_dir}"
    )
    outcome = run_sweep(run_dir, _options(plan), console, build)
    console.print(_summary(outcome, plan))
    console.print(f"run directory: {run_dir} (portbench report {run_dir} --versions)")
    return 0 if outcome.count("failed") == 0 else 7
