"""``portbench rerun RUN_DIR/CELL``: an earlier cell's exact plan, run here as a new run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from ..backends import BACKENDS, BuildOptions
from ..rerun import rerun_cell
from .bench import failures_table, summary_table

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rerun", help="run an earlier cell's exact plan here, as a new run naming its origin"
    )
    parser.add_argument("cell", type=Path, help="the earlier cell: results/<run-id>/<cell>")
    parser.add_argument(
        "--accelerator",
        help="this machine's accelerator of the same flavor (default: the origin's)",
    )
    parser.add_argument(
        "--image",
        metavar="REF",
        help="docker: run in this image (tag, id, or `images export` archive); default: the "
        "origin's image if it is here, else the profile's",
    )
    parser.add_argument(
        "--backend", choices=BACKENDS, help="default: the backend the origin ran on"
    )
    parser.add_argument("--run-dir", type=Path, help="the new run's directory")
    parser.add_argument(
        "--label",
        help="a name for this rerun, kept in its plan.json and shown by the report (the "
        "origin's label is not carried over: a rerun is another run)",
    )
    parser.add_argument(
        "--find-links", type=Path, help="a local wheelhouse for wheels no index serves"
    )
    parser.set_defaults(func=_rerun)


def _rerun(args: argparse.Namespace) -> int:
    console = Console()
    build = BuildOptions(find_links=args.find_links, image=args.image)
    result = rerun_cell(
        args.cell, console, args.accelerator, args.backend, build, args.run_dir, args.label
    )
    console.print(summary_table(f"rerun of {args.cell}", result))
    failures = failures_table(result.cell_dir / "results.jsonl")
    if failures is not None:
        console.print(failures)
    console.print(f"results: {result.cell_dir / 'results.jsonl'}")
    console.print(f"compare: portbench compare {args.cell} {result.cell_dir}")
    return 0
