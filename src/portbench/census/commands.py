"""``portbench census``: every operator of a framework's own database, in one cell."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table as RichTable

from ..backends import BACKENDS
from ..cellrun import BuildOptions
from ..errors import UsageError
from ..plan import DEFAULT_SEED, PlanOptions
from ..profiles import DEFAULT_PROFILE, PROFILES
from .plan import DEFAULT_CENSUS_TIMEOUT_S, CensusOptions
from .run import CENSUS_FRAMEWORKS, CensusRequest, run_census

__all__ = ["register"]

CENSUS_WARM_BUDGET_S = 0.02
CENSUS_WARMUP_S = 0.002
CENSUS_MAX_SAMPLES = 20


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "census",
        help="run every operator of a framework's own database (OpInfo) on one accelerator",
    )
    parser.add_argument("--framework", help=f"one of {', '.join(CENSUS_FRAMEWORKS)}")
    parser.add_argument("--accelerator", help="an id of images/accelerators.toml")
    parser.add_argument(
        "--profile", help=f"one of {', '.join(PROFILES)} (default: {DEFAULT_PROFILE})"
    )
    parser.add_argument("--backend", help=f"auto (default) or one of {', '.join(BACKENDS)}")
    parser.add_argument(
        "--ops",
        nargs="+",
        default=[],
        metavar="NAME",
        help="only these operators (op or op.variant)",
    )
    parser.add_argument(
        "--dtypes", nargs="+", default=[], metavar="DTYPE", help="only these dtypes"
    )
    parser.add_argument(
        "--case", action="append", default=[], metavar="ID", help="only this case id (repeatable)"
    )
    parser.add_argument(
        "--no-timing",
        action="store_true",
        help="support only: time each case's first call once, no warm samples",
    )
    parser.add_argument(
        "--samples", type=int, default=0, help="at most N samples per operator and dtype (0: all)"
    )
    parser.add_argument("--seed", type=int, help=f"default: {DEFAULT_SEED}")
    parser.add_argument(
        "--timeout", type=float, help=f"seconds per case (default: {DEFAULT_CENSUS_TIMEOUT_S:g})"
    )
    parser.add_argument(
        "--warm-budget", type=float, default=None, help="seconds of warm timing per case"
    )
    parser.add_argument(
        "--run-dir", type=Path, help="the run directory (default: results/<new id>)"
    )
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="finish an interrupted census (its run or cell dir)",
    )
    parser.add_argument(
        "--predict",
        action="store_true",
        help="predict the accelerator on this machine's CPU (JAX: each harness lowered for its "
        "platform; torch: the CUDA dispatcher); docs/predictions.md",
    )
    parser.add_argument("--python", default=None, help="host profile: the interpreter to use")
    parser.add_argument("--base", help="docker: base image of the cell's image")
    parser.add_argument("--ca-bundle", type=Path, help="CA bundle for pip behind a TLS proxy")
    parser.add_argument("--find-links", type=Path, help="a local wheelhouse")
    parser.add_argument("--image", metavar="REF", help="docker: the cell's image to derive from")
    parser.set_defaults(func=_census)


def _options(args: argparse.Namespace) -> CensusOptions:
    if args.samples < 0:
        raise UsageError("--samples must be 0 (every sample) or more")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    # A census times thousands of cases: a fifth of bench's adaptive budget each, so the
    # PyTorch census stays within half an hour on two cores (--warm-budget to change it).
    budget = CENSUS_WARM_BUDGET_S if args.warm_budget is None else args.warm_budget
    timing = {
        "warm_budget_s": budget,
        "adaptive_budget_s": budget,
        "warmup_s": CENSUS_WARMUP_S,
        "adaptive_max_samples": CENSUS_MAX_SAMPLES,
    }
    plan = PlanOptions(
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        case_timeout_s=DEFAULT_CENSUS_TIMEOUT_S if args.timeout is None else args.timeout,
        timing=timing,
    )
    return CensusOptions(
        ops=tuple(args.ops),
        dtypes=tuple(args.dtypes),
        cases=tuple(args.case),
        timing=not args.no_timing,
        max_samples=args.samples,
        plan=plan,
    )


def _request(args: argparse.Namespace) -> CensusRequest:
    build = BuildOptions(args.base, args.ca_bundle, args.find_links, args.image)
    if args.resume is not None:
        return _resumed_request(args, build)
    missing = [flag for flag in ("framework", "accelerator") if not getattr(args, flag)]
    if missing:
        raise UsageError(
            f"--{' and --'.join(missing)} {'is' if len(missing) == 1 else 'are'} needed "
            "(e.g. portbench census --framework torch --accelerator cpu)"
        )
    return CensusRequest(
        framework=args.framework,
        accelerator=args.accelerator,
        profile=args.profile or DEFAULT_PROFILE,
        backend=args.backend or "auto",
        options=_options(args),
        run_dir=args.run_dir,
        python=args.python,
        build=build,
    )


def _resumed_request(args: argparse.Namespace, build: BuildOptions) -> CensusRequest:
    """A resumed census finishes its plan: selection and timing options cannot change it."""
    given = [
        flag
        for flag, value in (
            ("--ops", args.ops),
            ("--dtypes", args.dtypes),
            ("--case", args.case),
            ("--no-timing", args.no_timing),
            ("--samples", args.samples),
            ("--seed", args.seed),
            ("--timeout", args.timeout),
            ("--warm-budget", args.warm_budget),
        )
        if value not in (None, [], False, 0)
    ]
    if given:
        raise UsageError(
            f"{', '.join(given)} cannot go with --resume: a resumed census finishes the plan "
            "it was compiled with; drop them, or start a new census"
        )
    from ..resume import find_resumed_cell

    target = find_resumed_cell(args.resume, args.framework, args.accelerator, args.profile)
    return replace(
        CensusRequest(target.framework, target.accelerator, target.profile, target.backend),
        resume=target.cell_dir,
        python=args.python,
        build=build,
    )


def _vertical(table: Any) -> RichTable:
    """One census cell's summary row as a column of figures (the row is too wide for a
    terminal)."""
    rich = RichTable(title=table.title, show_header=False)
    rich.add_column("what")
    rich.add_column("value", justify="right")
    for name, value in zip(table.headers, table.rows[0] if table.rows else []):
        rich.add_row(name, str(value))
    return rich


def _census(args: argparse.Namespace) -> int:
    from ..commands.bench import failures_table, summary_table
    from ..report.census import census_summary_table
    from ..report.load import load_cell

    console = Console()
    request = _request(args)
    if args.predict:
        from ..predict.census import run_predicted_census

        result = run_predicted_census(request, console)
    else:
        result = run_census(request, console)
    suffix = "-predicted" if args.predict else ""
    cell_id = f"{request.framework}/{request.accelerator}{suffix}/{request.profile}"
    console.print(summary_table(f"census {cell_id}", result))
    console.print(_vertical(census_summary_table([load_cell(result.cell_dir)])))
    failures = failures_table(result.cell_dir / "results.jsonl", limit=15)
    if failures is not None:
        console.print(failures)
    console.print(f"results: {result.cell_dir / 'results.jsonl'}")
    return 0
