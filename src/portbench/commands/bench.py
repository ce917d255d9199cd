"""``portbench bench``: run (or resume) one cell."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from portbench_runner.contract import TimingSettings

from ..backends import BACKENDS
from ..cellrun import BenchRequest, BuildOptions, CellRunResult, run_cell
from ..errors import UsageError
from ..plan import (
    DEFAULT_CASE_TIMEOUT_S,
    DEFAULT_CELL_BUDGET_S,
    DEFAULT_SEED,
    FALLBACK_MODES,
    LOWERING_PLATFORMS,
    FallbackOptions,
    PlanOptions,
    check_label,
)
from ..profiles import DEFAULT_PROFILE, PROFILES
from ..releases.cells import release_cell_profile
from ..report.wrap import Breakable
from ..results import Outcome, read_results
from ..resume import find_resumed_cell

__all__ = ["failures_table", "marked_passes", "register", "summary_table", "timing_settings"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="run one cell (framework x accelerator x profile)")
    parser.add_argument("--framework", help="torch, tensorflow or jax")
    parser.add_argument("--accelerator", help="an id of images/accelerators.toml")
    parser.add_argument(
        "--profile", help=f"one of {', '.join(PROFILES)} (default: {DEFAULT_PROFILE})"
    )
    parser.add_argument(
        "--release",
        metavar="FRAMEWORK==VERSION",
        help="a framework release instead of a profile (e.g. jax==0.6.2): its lock is made "
        "with uv for the newest Python its wheels support (docs/releases.md)",
    )
    parser.add_argument("--backend", help=f"auto (default) or one of {', '.join(BACKENDS)}")
    parser.add_argument(
        "--functions", nargs="+", default=[], metavar="NAME", help="only these functions"
    )
    parser.add_argument(
        "--case", action="append", default=[], metavar="ID", help="only this case id (repeatable)"
    )
    parser.add_argument(
        "--run-dir", type=Path, help="the run directory (default: results/<new id>)"
    )
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="finish an interrupted run (its run or cell directory); the cell's plan.json "
        "gives framework, accelerator, profile and backend",
    )
    parser.add_argument("--seed", type=int, help=f"default: {DEFAULT_SEED}")
    parser.add_argument(
        "--label",
        help="a name for this run, of your choosing, kept in plan.json; the report shows it "
        "beside the cell (e.g. 'after driver update')",
    )
    parser.add_argument(
        "--timeout", type=float, help=f"seconds per case (default: {DEFAULT_CASE_TIMEOUT_S:g})"
    )
    parser.add_argument(
        "--warm-budget", type=float, default=None, help="seconds of warm timing per case"
    )
    parser.add_argument(
        "--no-timing",
        action="store_true",
        default=None,
        help="outcomes and cold calls only: no warm samples (a sweep's fast mode)",
    )
    parser.add_argument(
        "--fallback",
        choices=FALLBACK_MODES,
        default=None,
        help="a case whose work ran partly on the host: 'mark' it and pass (default) or "
        "'fail' it as category fallback",
    )
    parser.add_argument(
        "--soft-placement",
        action="store_true",
        default=None,
        help="TensorFlow: soft device placement on (off by default); where ops went is recorded",
    )
    parser.add_argument(
        "--lower-for",
        choices=LOWERING_PLATFORMS,
        default=None,
        help="JAX: lower each measured call for this platform to look for host work "
        "(default: the cell's own; lowering needs no such hardware)",
    )
    parser.add_argument(
        "--predict",
        action="store_true",
        default=None,
        help="predict the accelerator on this machine's CPU instead of running on it (JAX: "
        "lowered for its platform; torch: torch_xla's CPU client or the CUDA dispatcher; "
        "TensorFlow: declared GPU kernels or XLA on the CPU); docs/predictions.md",
    )
    parser.add_argument(
        "--cell-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"the cell's wall-time cap: warm timing is thinned to end near it, every case "
        f"still runs (default: {DEFAULT_CELL_BUDGET_S:g}; 0: no cap)",
    )
    parser.add_argument(
        "--python",
        default=None,
        help="host profile: the interpreter whose installed frameworks run the cell",
    )
    parser.add_argument(
        "--base", help="docker: base image (default: the profile's, else the local debootstrap one)"
    )
    parser.add_argument(
        "--ca-bundle", type=Path, help="CA bundle for pip behind a TLS proxy (default: pip's cert)"
    )
    parser.add_argument(
        "--find-links", type=Path, help="a local wheelhouse for wheels no index serves"
    )
    parser.add_argument(
        "--image",
        metavar="REF",
        help="docker: run in this image (a tag, an id, or an archive of `images export`), "
        "checked to hold the cell's lock, never rebuilt",
    )
    parser.set_defaults(func=_bench)


def summary_table(cell_id: str, result: CellRunResult) -> Table:
    """Function and case outcomes; "fails on the CPU too" counts the functions in that bucket
    and, of the failed cases, those whose CPU twin failed as well (always 0 on the CPU)."""
    table = Table(title=f"{cell_id}: {result.wall_s:.1f} s")
    table.add_column("level")
    # Headers break after '/' and between words, never inside one ("complete/sk…").
    for name in ("pass", "partial/fail", "complete/skip", "untested/error", "fails on the CPU too"):
        table.add_column(Breakable(name), justify="right")
    c, f = result.case_counts, result.function_counts
    table.add_row(
        "functions",
        str(f["pass"]),
        str(f["partial"]),
        str(f["complete"]),
        str(f["untested"]),
        str(f.get("cpu_too", 0)),
    )
    table.add_row(
        "cases",
        str(c["pass"]),
        str(c["fail"]),
        str(c["skip"]),
        str(c["error"]),
        str(c.get("cpu_too", 0)),
    )
    return table


def failures_table(results: Path, limit: int = 25) -> Table | None:
    """The failed and errored cases, with stage, category and the first line of the error.

    Records are read through the results layer (no link followed, damaged lines skipped);
    the title says how many lines were skipped.
    """
    read = read_results(results)
    rows = []
    for record in read.records:
        if record.outcome not in (Outcome.FAIL, Outcome.ERROR):
            continue
        text = (record.error.message if record.error else "") or record.reason or ""
        message = text.strip().splitlines()
        rows.append(
            (
                record.case,
                record.outcome.value,
                record.stage.value if record.stage else "",
                record.category.value if record.category else "",
                message[0][:90] if message else "",
            )
        )
    if not rows:
        return None
    skipped = f"; {read.skipped} unreadable line(s) skipped" if read.skipped else ""
    table = Table(
        title=f"failures ({len(rows)}; each record in results.jsonl has its rerun command{skipped})"
    )
    for column in ("case", "outcome", "stage", "category", "message"):
        table.add_column(column)
    for row in rows[:limit]:
        # Names and messages wrap after '::', '.', '_' or a space: never cut at 80 columns.
        table.add_row(*(Breakable(value) for value in row))
    if len(rows) > limit:
        table.add_row(f"... {len(rows) - limit} more", "", "", "", "")
    return table


def untested_functions(cell_dir: Path) -> list[str]:
    """The functions of the cell's plan where no case ran (every case skipped or errored)."""
    from ..outcomes import function_outcomes
    from ..plan import read_plan

    plan = read_plan(cell_dir / "plan.json")
    records = read_results(cell_dir / "results.jsonl").records
    return sorted(
        {
            name
            for (name, _), outcome in function_outcomes(plan, records).items()
            if outcome == "untested"
        }
    )


def marked_passes(results: Path) -> list[str]:
    """Case ids that passed while a probe saw part of their work run on the host."""
    return [
        r.case
        for r in read_results(results).records
        if r.outcome is Outcome.PASS and r.fallback_marked
    ]


#: Options that shape a new plan; a resumed cell keeps the plan it was compiled with.
_PLAN_OPTIONS = {
    "functions": "--functions",
    "case": "--case",
    "seed": "--seed",
    "timeout": "--timeout",
    "warm_budget": "--warm-budget",
    "no_timing": "--no-timing",
    "release": "--release",
    "label": "--label",
    "fallback": "--fallback",
    "soft_placement": "--soft-placement",
    "lower_for": "--lower-for",
    "cell_budget": "--cell-budget",
    "predict": "--predict",
}


def _resumed_request(args: argparse.Namespace, console: Console) -> BenchRequest:
    """The request that finishes the cell ``--resume`` names, as its plan says it ran."""
    given = [flag for name, flag in _PLAN_OPTIONS.items() if getattr(args, name) not in (None, [])]
    if given:
        raise UsageError(
            f"{', '.join(given)} cannot go with --resume: a resumed cell finishes the plan it "
            "was compiled with (plan.json); drop them, or start a new run with them"
        )
    target = find_resumed_cell(args.resume, args.framework, args.accelerator, args.profile)
    if args.backend not in (None, "auto", target.backend):
        raise UsageError(
            f"{target.cell_dir} ran on the {target.backend} backend, not {args.backend}; a "
            "cell's records come from one environment, so drop --backend (or start a new run)"
        )
    if args.run_dir is not None and args.run_dir.absolute() != target.cell_dir.parent.absolute():
        console.print(
            f"[yellow]note:[/] --run-dir is not used with --resume; the cell resumes in "
            f"{target.cell_dir}"
        )
    return BenchRequest(
        framework=target.framework,
        accelerator=target.accelerator,
        profile=target.profile,
        backend=target.backend,
        resume=target.cell_dir,
        python=args.python,
        build=BuildOptions(args.base, args.ca_bundle, args.find_links),
    )


def _release_profile(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """(framework, profile) of the command line; ``--release`` stands for both."""
    if args.release is None:
        return args.framework, args.profile
    if args.profile is not None:
        raise UsageError(
            f"--release {args.release} and --profile {args.profile} both name the cell's "
            "pins; pass one of them"
        )
    return release_cell_profile(args.release, args.framework)


def timing_settings(warm_budget: float | None, no_timing: bool) -> TimingSettings:
    """A plan's ``timing`` from the command line (bench and sweep)."""
    if no_timing:
        if warm_budget is not None:
            raise UsageError("--warm-budget times warm calls, which --no-timing skips; drop one")
        return {"mode": "none"}
    # One budget for both modes: adaptive's time cap and fixed mode's budget.
    if warm_budget is not None:
        return {"warm_budget_s": warm_budget, "adaptive_budget_s": warm_budget}
    return {}


def _new_request(args: argparse.Namespace) -> BenchRequest:
    args.framework, args.profile = _release_profile(args)
    missing = [flag for flag in ("framework", "accelerator") if not getattr(args, flag)]
    if missing:
        raise UsageError(
            f"--{' and --'.join(missing)} {'is' if len(missing) == 1 else 'are'} needed for a "
            "new run (e.g. --framework jax --accelerator cpu); to finish an interrupted one, "
            "pass --resume RUN_DIR alone"
        )
    for flag, value, framework in (
        ("--lower-for", args.lower_for, "jax"),
        ("--soft-placement", args.soft_placement, "tensorflow"),
    ):
        if value and args.framework != framework:
            raise UsageError(
                f"{flag} applies to {framework} cells only, not {args.framework}; drop it"
            )
    timing = timing_settings(args.warm_budget, bool(args.no_timing))
    options = PlanOptions(
        functions=tuple(args.functions),
        cases=tuple(args.case),
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        case_timeout_s=DEFAULT_CASE_TIMEOUT_S if args.timeout is None else args.timeout,
        timing=timing,
        label=check_label(args.label),
        fallback=FallbackOptions(
            mode=args.fallback or "mark",
            soft_placement=bool(args.soft_placement),
            lower_for=args.lower_for,
        ),
        cell_budget_s=DEFAULT_CELL_BUDGET_S if args.cell_budget is None else args.cell_budget,
    )
    return BenchRequest(
        framework=args.framework,
        accelerator=args.accelerator,
        profile=args.profile or DEFAULT_PROFILE,
        backend=args.backend or "auto",
        options=options,
        run_dir=args.run_dir,
        python=args.python,
        build=BuildOptions(args.base, args.ca_bundle, args.find_links, args.image),
    )


def _bench(args: argparse.Namespace) -> int:
    console = Console()
    request = _resumed_request(args, console) if args.resume is not None else _new_request(args)
    if args.predict:
        from ..predict.run import run_predicted_cell

        result = run_predicted_cell(request, console)
    else:
        result = run_cell(request, console)
    suffix = "-predicted" if args.predict else ""
    # A predicted pass over several targets: the first is the session's cell, the others
    # its siblings, each summed up as a cell of its own.
    first = request.accelerator.split(",")[0].strip()
    cell_id = f"{request.framework}/{first}{suffix}/{request.profile}"
    console.print(summary_table(cell_id, result))
    for sibling in result.siblings:
        console.print(summary_table(sibling.cell_dir.name, sibling))
    untested = untested_functions(result.cell_dir)
    if untested:
        console.print(
            f"[yellow]{len(untested)} function(s) untested[/] (no case ran: each skipped or "
            f"errored; see the failures and the records' reasons): {escape(', '.join(untested))}"
        )
    failures = failures_table(result.cell_dir / "results.jsonl")
    if failures is not None:
        console.print(failures)
    marked = marked_passes(result.cell_dir / "results.jsonl")
    if marked:
        console.print(
            f"[yellow]{len(marked)} passing case(s) ran partly on the host[/] (evidence in "
            f"each record; --fallback fail counts them as failures): {escape(', '.join(marked[:5]))}"
            + (" ..." if len(marked) > 5 else "")
        )
    console.print(f"results: {result.cell_dir / 'results.jsonl'}")
    return 0
