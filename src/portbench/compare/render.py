"""A comparison shown: rich tables in the terminal, Markdown (tabulate) and JSON to files."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from tabulate import tabulate

from .pairs import CaseComparison, CellComparison, CellSide, Thresholds

__all__ = ["comparison_json", "comparison_markdown", "print_comparison"]

#: Rows of slower/faster/broken cases shown in the terminal per cell (files hold them all).
TERMINAL_ROWS = 15


def geometric_mean_ratio(comparison: CellComparison) -> float | None:
    """The geometric mean of B/A over the cases timed on both sides: the cell's overall drift."""
    ratios = [c.estimate.ratio for c in comparison.cases if c.estimate and c.estimate.ratio > 0]
    if not ratios:
        return None
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def _summary(comparison: CellComparison) -> dict[str, int]:
    return {
        "paired": len(comparison.cases),
        "slower": comparison.count("slower"),
        "faster": comparison.count("faster"),
        "same": comparison.count("same"),
        "untimed": comparison.count("none"),
        "broke": len(comparison.changes("broke")),
        "fixed": len(comparison.changes("fixed")),
        "changed": len(comparison.changes("changed")),
        "unpaired": sum(comparison.unpaired.values()),
    }


def _interval(case: CaseComparison) -> str:
    estimate = case.estimate
    if estimate is None:
        return ""
    if estimate.low is None or estimate.high is None:
        return "summary only"
    return f"{estimate.low:.2f}-{estimate.high:.2f}"


def _p(case: CaseComparison) -> str:
    estimate = case.estimate
    return "" if estimate is None or estimate.p_value is None else f"{estimate.p_value:.2g}"


def _notable(comparison: CellComparison) -> list[CaseComparison]:
    """Broken and fixed cases first, then regressions by ratio, then improvements."""
    order = {"broke": 0, "fixed": 1}
    moved = [c for c in comparison.cases if c.change in order]
    moved.sort(key=lambda c: (order[c.change], c.case))
    slower = sorted(
        (c for c in comparison.cases if c.verdict == "slower"),
        key=lambda c: -(c.estimate.ratio if c.estimate else 0.0),
    )
    faster = sorted(
        (c for c in comparison.cases if c.verdict == "faster"),
        key=lambda c: c.estimate.ratio if c.estimate else 0.0,
    )
    return moved + slower + faster


def _case_row(case: CaseComparison) -> list[str]:
    estimate = case.estimate
    ratio = ""
    if estimate is not None:
        ratio = f"{estimate.ratio:.3f}"
        ratio += f" [{_interval(case)}]" if estimate.low is not None else " (summary)"
    medians = (
        f"{case.median_a_ms:.4g} -> {case.median_b_ms:.4g}"
        if case.median_a_ms is not None and case.median_b_ms is not None
        else ""
    )
    outcome = (
        case.outcome_a
        if case.outcome_a == case.outcome_b
        else f"{case.outcome_a} -> {case.outcome_b}"
    )
    verdict = case.change if case.change in ("broke", "fixed") else case.verdict
    return [case.case, outcome, medians, ratio, _p(case), verdict]


#: B/A with its 95% bootstrap interval, or "(summary)" where only medians and IQRs exist.
CASE_COLUMNS = ["case", "outcome", "median ms A -> B", "B/A [95% CI]", "p", "verdict"]


def print_comparison(
    console: Console,
    comparisons: list[CellComparison],
    lone_a: list[CellSide],
    lone_b: list[CellSide],
    thresholds: Thresholds,
) -> None:
    for comparison in comparisons:
        a, b = comparison.a, comparison.b
        console.print(f"[bold]{escape(a.cell_id)}[/] ({escape(str(a.path))})")
        console.print(f"  against [bold]{escape(b.cell_id)}[/] ({escape(str(b.path))})")
        if comparison.differences:
            table = Table(title="what differs between the two cells", title_justify="left")
            for column in ("", "A", "B"):
                table.add_column(column)
            for what, left, right in comparison.differences:
                table.add_row(escape(what), escape(left[:60]), escape(right[:60]))
            console.print(table)
        summary = _summary(comparison)
        on_summaries = sum(
            1 for c in comparison.cases if c.estimate and c.estimate.method == "summary"
        )
        if on_summaries:
            console.print(
                f"  [yellow]{on_summaries} case(s) compared on summary statistics:[/] their "
                "records keep no samples (written before schema 2); significant = IQRs disjoint"
            )
        unpaired = ", ".join(f"{n} {why}" for why, n in sorted(comparison.unpaired.items()))
        console.print(
            f"  {summary['paired']} cases paired: {summary['slower']} slower, "
            f"{summary['faster']} faster, {summary['same']} within ±{thresholds.slower:.0%} or "
            f"not significant, {summary['untimed']} not timed on both; outcomes: "
            f"{summary['broke']} broke, {summary['fixed']} fixed, {summary['changed']} other "
            f"changes; unpaired: {summary['unpaired']}" + (f" ({unpaired})" if unpaired else "")
        )
        drift = geometric_mean_ratio(comparison)
        if drift is not None:
            console.print(f"  geometric mean of B/A over the timed cases: {drift:.3f}")
        notable = _notable(comparison)
        if notable:
            table = Table(title="cases that changed", title_justify="left")
            for column in CASE_COLUMNS:
                table.add_column(column, overflow="fold")
            for case in notable[:TERMINAL_ROWS]:
                table.add_row(*(escape(cell) for cell in _case_row(case)))
            if len(notable) > TERMINAL_ROWS:
                table.add_row(f"... {len(notable) - TERMINAL_ROWS} more (--markdown/--json)")
            console.print(table)
        if comparison.functions:
            table = Table(title="functions whose verdict changed", title_justify="left")
            for column in ("function", "A", "B"):
                table.add_column(column)
            for function, left, right in comparison.functions:
                table.add_row(escape(function), left, right)
            console.print(table)
    for label, lone in (("A", lone_a), ("B", lone_b)):
        for side in lone:
            console.print(
                f"[yellow]unpaired cell in {label}:[/] {escape(side.cell_id)} ({escape(str(side.path))})"
            )


def comparison_json(
    comparisons: list[CellComparison],
    lone_a: list[CellSide],
    lone_b: list[CellSide],
    thresholds: Thresholds,
) -> dict[str, object]:
    def case(c: CaseComparison) -> dict[str, object]:
        estimate = c.estimate
        return {
            "case": c.case,
            "function": c.function,
            "outcome_a": c.outcome_a,
            "outcome_b": c.outcome_b,
            "change": c.change,
            "median_a_ms": c.median_a_ms,
            "median_b_ms": c.median_b_ms,
            "ratio": estimate.ratio if estimate else None,
            "ci95": [estimate.low, estimate.high]
            if estimate and estimate.low is not None
            else None,
            "p_value": estimate.p_value if estimate else None,
            "method": estimate.method if estimate else None,
            "verdict": c.verdict,
        }

    return {
        "schema": 1,
        "kind": "comparison",
        "thresholds": {"slower": thresholds.slower, "alpha": thresholds.alpha},
        "cells": [
            {
                "a": {"cell": c.a.cell_id, "path": str(c.a.path)},
                "b": {"cell": c.b.cell_id, "path": str(c.b.path)},
                "differences": [{"what": w, "a": x, "b": y} for w, x, y in c.differences],
                "summary": _summary(c),
                "geometric_mean_ratio": geometric_mean_ratio(c),
                "unpaired": dict(sorted(c.unpaired.items())),
                "functions": [{"function": f, "a": x, "b": y} for f, x, y in c.functions],
                "cases": [case(item) for item in c.cases],
            }
            for c in comparisons
        ],
        "unpaired_cells": {
            "a": [s.cell_id for s in lone_a],
            "b": [s.cell_id for s in lone_b],
        },
    }


def _markdown_table(rows: Sequence[Sequence[Any]], headers: list[str]) -> str:
    return tabulate([list(row) for row in rows], headers=headers, tablefmt="github") + "\n"


def comparison_markdown(
    comparisons: list[CellComparison],
    lone_a: list[CellSide],
    lone_b: list[CellSide],
    thresholds: Thresholds,
) -> str:
    parts: list[str] = []
    for comparison in comparisons:
        parts.append(f"## {comparison.a.cell_id} against {comparison.b.cell_id}\n")
        parts.append(f"A: `{comparison.a.path}`  \nB: `{comparison.b.path}`\n")
        if comparison.differences:
            parts.append(_markdown_table(comparison.differences, ["", "A", "B"]))
        summary = _summary(comparison)
        parts.append(_markdown_table([list(summary.values())], list(summary)))
        if comparison.unpaired:
            parts.append(
                "Unpaired cases: "
                + ", ".join(f"{n} {why}" for why, n in sorted(comparison.unpaired.items()))
                + "\n"
            )
        notable = _notable(comparison)
        if notable:
            parts.append(
                f"Cases that changed (regression: B/A above {1 + thresholds.slower:.2f} and "
                f"significant at {thresholds.alpha}):\n"
            )
            parts.append(_markdown_table([_case_row(c) for c in notable], CASE_COLUMNS))
        if comparison.functions:
            parts.append(_markdown_table(comparison.functions, ["function", "A", "B"]))
    for label, lone in (("A", lone_a), ("B", lone_b)):
        for side in lone:
            parts.append(f"Unpaired cell in {label}: {side.cell_id} (`{side.path}`)\n")
    return "# portbench compare\n\n" + "\n".join(parts)
