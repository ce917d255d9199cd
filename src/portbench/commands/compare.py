"""``portbench compare A B`` (or ``A1 A2 A3 --vs B1 B2 B3``): runs or cells case by case; a
CI gate with --fail-on."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from ..compare import Thresholds
from ..compare.render import comparison_json, comparison_markdown, print_comparison
from ..compare.runs import compare_runs
from ..errors import UsageError

__all__ = ["register"]

FAIL_ON = ("slower", "broke", "any")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare", help="compare two runs or cells case by case (outcomes, latency, verdicts)"
    )
    parser.add_argument(
        "runs",
        type=Path,
        nargs="+",
        metavar="RUN",
        help="A then B (run or cell directories); with --vs, every RUN is a run of side A",
    )
    parser.add_argument(
        "--vs",
        type=Path,
        nargs="+",
        default=None,
        metavar="RUN",
        help="the runs of side B: several runs a side measure the noise between runs, "
        "and a change must exceed it (compare A1 A2 A3 --vs B1 B2 B3)",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.10,
        help="the minimum ratio: a case is slower (or faster) when B/A is beyond 1 +- this "
        "and significant after the Benjamini-Hochberg adjustment (default 0.10)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="false discovery rate over the compared cases (Benjamini-Hochberg; default 0.05)",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default=None,
        help="exit 1 when a case got slower (slower), a passing case fails (broke), or either",
    )
    parser.add_argument("--markdown", type=Path, help="also write the comparison as Markdown")
    parser.add_argument("--json", type=Path, help="also write the comparison as JSON")
    parser.set_defaults(func=_compare)


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path} ({exc.strerror}); pick a writable path") from None


def _compare(args: argparse.Namespace) -> int:
    if not 0 < args.threshold < 10:
        raise UsageError(f"--threshold {args.threshold} is not a share like 0.10; pass 0 < T < 10")
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha} must lie between 0 and 1")
    thresholds = Thresholds(args.threshold, args.alpha)
    if args.vs is None and len(args.runs) != 2:
        raise UsageError(
            f"compare takes two runs (A B), or several a side (A1 A2 --vs B1 B2); "
            f"{len(args.runs)} given without --vs"
        )
    paths_a, paths_b = (
        (args.runs, args.vs) if args.vs is not None else (args.runs[:1], args.runs[1:])
    )
    result = compare_runs(paths_a, paths_b, thresholds)
    comparisons = result.cells
    console = Console()
    print_comparison(console, result, thresholds)
    if args.markdown:
        _write(args.markdown, comparison_markdown(result, thresholds))
        console.print(f"Markdown: {args.markdown}")
    if args.json:
        document = comparison_json(result, thresholds)
        _write(args.json, json.dumps(document, indent=2) + "\n")
        console.print(f"JSON: {args.json}")
    slower = sum(c.count("slower") for c in comparisons)
    broke = sum(len(c.changes("broke")) for c in comparisons)
    failing = {"slower": slower, "broke": broke, "any": slower + broke}.get(args.fail_on or "", 0)
    if failing:
        console.print(f"[bold red]--fail-on {args.fail_on}:[/] {failing} case(s); exit 1")
        return 1
    return 0
