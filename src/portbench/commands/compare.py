"""``portbench compare A B``: two runs (or cells) case by case; a CI gate with --fail-on."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from ..compare import Thresholds, compare_cells, load_side, pair_cells
from ..compare.render import comparison_json, comparison_markdown, print_comparison
from ..errors import UsageError

__all__ = ["register"]

FAIL_ON = ("slower", "broke", "any")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare", help="compare two runs or cells case by case (outcomes, latency, verdicts)"
    )
    parser.add_argument("a", type=Path, help="the baseline: a run directory or a cell directory")
    parser.add_argument("b", type=Path, help="the run or cell compared with it")
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.10,
        help="a case is slower (or faster) when B/A is beyond 1 +- this and significant "
        "(default 0.10)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance level of the rank test"
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
    pairs, lone_a, lone_b = pair_cells(load_side(args.a), load_side(args.b))
    if not pairs:
        raise UsageError(
            f"no cell of {args.a} pairs with a cell of {args.b} (same cell, or same framework); "
            "pass two cells of one framework"
        )
    comparisons = [compare_cells(a, b, thresholds) for a, b in pairs]
    console = Console()
    print_comparison(console, comparisons, lone_a, lone_b, thresholds)
    if args.markdown:
        _write(args.markdown, comparison_markdown(comparisons, lone_a, lone_b, thresholds))
        console.print(f"Markdown: {args.markdown}")
    if args.json:
        document = comparison_json(comparisons, lone_a, lone_b, thresholds)
        _write(args.json, json.dumps(document, indent=2) + "\n")
        console.print(f"JSON: {args.json}")
    slower = sum(c.count("slower") for c in comparisons)
    broke = sum(len(c.changes("broke")) for c in comparisons)
    failing = {"slower": slower, "broke": broke, "any": slower + broke}.get(args.fail_on or "", 0)
    if failing:
        console.print(f"[bold red]--fail-on {args.fail_on}:[/] {failing} case(s); exit 1")
        return 1
    return 0
