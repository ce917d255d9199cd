"""A comparison shown: rich tables in the terminal, Markdown and JSON to files."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any, Literal

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..report.markdown import md_table, md_text
from ..report.wrap import Breakable
from .pairs import CaseComparison, CellComparison, Thresholds
from .runs import Comparison
from .stats import EXACT_MAX, min_per_side, smallest_p
from .verdicts import TOO_FEW_VERDICT, noise_floor

__all__ = ["comparison_json", "comparison_markdown", "explain", "print_comparison"]

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
        "too few samples": comparison.count(TOO_FEW_VERDICT),
        "untimed": comparison.count("none"),
        "broke": len(comparison.changes("broke")),
        "fixed": len(comparison.changes("fixed")),
        "changed": len(comparison.changes("changed")),
        "unpaired": sum(comparison.unpaired.values()),
    }


def _too_few(comparison: CellComparison) -> tuple[int, tuple[int, int] | None]:
    """(cases whose records keep no samples on a side, the fewest samples of the others)."""
    few = [
        (c.estimate.n_a, c.estimate.n_b)
        for c in comparison.cases
        if c.estimate is not None and c.verdict == TOO_FEW_VERDICT
    ]
    empty = sum(1 for pair in few if min(pair) == 0)
    rest = [pair for pair in few if min(pair) > 0]
    return empty, (min(rest, key=lambda pair: (min(pair), sum(pair))) if rest else None)


def _run_noise(comparison: CellComparison) -> float | None:
    """The median over the timed cases of the noise between runs (largest run-median ratio
    within a side), as a share: 0.04 is 4%. None with one run a side."""
    spreads = [
        c.estimate.run_spread
        for c in comparison.cases
        if c.estimate is not None and c.estimate.run_spread is not None
    ]
    return statistics.median(spreads) - 1.0 if spreads else None


def explain(result: Comparison, thresholds: Thresholds) -> list[str]:
    """How the verdicts were reached, in sentences (the same in every output)."""
    tested = sum(
        1
        for c in result.cells
        for case in c.cases
        if case.estimate is not None and case.estimate.q_value is not None
    )
    lines = [
        f"Verdicts: Mann-Whitney U on the warm samples of every run (exact up to {EXACT_MAX} "
        f"samples a side), p adjusted with Benjamini-Hochberg over the {tested} tested "
        f"case(s) (false discovery rate {thresholds.alpha}), and B/A beyond "
        f"±{thresholds.slower:.0%} (the minimum ratio: a smaller change is no regression, "
        "however sure)."
    ]
    if result.runs_a > 1 or result.runs_b > 1:
        lines.append(
            f"Runs: {result.runs_a} in A, {result.runs_b} in B; a change is called only where "
            "every run of B lies beyond every run of A and B/A is beyond the cell's noise "
            "floor (the 95th percentile of its cases' noise between runs)."
        )
    else:
        lines.append(
            "One run a side: the noise between runs is not measured, so a case is slower or "
            f"faster only where the whole 95% interval of B/A lies beyond ±{thresholds.slower:.0%}"
            "; name several runs a side to measure that noise (compare A1 A2 A3 --vs B1 B2 B3)."
        )
    return lines


def _cell_lines(comparison: CellComparison, thresholds: Thresholds) -> list[str]:
    summary = _summary(comparison)
    unpaired = ", ".join(f"{n} {why}" for why, n in sorted(comparison.unpaired.items()))
    lines = [
        f"{summary['paired']} cases paired: {summary['slower']} slower, "
        f"{summary['faster']} faster, {summary['same']} within ±{thresholds.slower:.0%} or not "
        f"significant, {summary['too few samples']} too few samples, {summary['untimed']} not "
        f"timed on both; outcomes: {summary['broke']} broke, {summary['fixed']} fixed, "
        f"{summary['changed']} other changes; unpaired: {summary['unpaired']}"
        + (f" ({unpaired})" if unpaired else "")
    ]
    empty, fewest = _too_few(comparison)
    if empty:
        lines.append(
            f"{empty} case(s) have no verdict: their records keep no warm samples on a side "
            "(records of schema 1 keep only summaries); rerun the cell to compare them"
        )
    if fewest is not None:
        n_a, n_b = fewest
        lines.append(
            f"{summary['too few samples'] - empty} case(s) have no verdict: too few warm "
            f"samples on a side for the exact rank test to reach alpha {thresholds.alpha} "
            f"(fewest: A {n_a}, B {n_b}, where the smallest p possible is "
            f"{smallest_p(n_a, n_b):.2g}; {min_per_side(thresholds.alpha)} a side is the "
            "least that can reach it)"
        )
    noise = _run_noise(comparison)
    floor = noise_floor(comparison)
    if noise is not None and floor is not None:
        lines.append(
            f"noise between runs: {noise:.1%} for the median case, {floor - 1:.1%} for the 95th "
            "percentile (the noise floor a change must exceed)"
        )
    for label, side in (("A", comparison.a), ("B", comparison.b)):
        if side.env_problem:
            lines.append(
                f"{label}'s env.json ({side.path / 'env.json'}) is not usable: "
                f"{side.env_problem}; versions and packages are not compared"
            )
    return lines


def _interval(case: CaseComparison) -> str:
    estimate = case.estimate
    if estimate is None or estimate.low is None or estimate.high is None:
        return ""
    return f"{estimate.low:.2f}-{estimate.high:.2f}"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.2g}"


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
    ratio = samples = ""
    if estimate is not None:
        ratio = f"{estimate.ratio:.3f}" + (f" [{_interval(case)}]" if _interval(case) else "")
        samples = f"{estimate.n_a}/{estimate.n_b}"
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
    p_value = _number(estimate.p_value) if estimate else ""
    q_value = _number(estimate.q_value) if estimate else ""
    return [case.case, outcome, medians, ratio, samples, p_value, q_value, verdict]


#: B/A with its 95% bootstrap interval; samples on each side; p and its adjusted q.
CASE_COLUMNS = ["case", "outcome", "median ms A -> B", "B/A [95% CI]", "n A/B", "p", "q", "verdict"]
TERMINAL_COLUMNS = ["case", "A ms", "B ms", "B/A", "q", "verdict"]


def _justify(column: str) -> Literal["left", "right"]:
    return "left" if column in ("case", "verdict") else "right"


def _terminal_row(case: CaseComparison) -> list[str]:
    estimate = case.estimate
    verdict = case.change if case.change in ("broke", "fixed") else case.verdict
    return [
        case.case,
        "" if case.median_a_ms is None else f"{case.median_a_ms:.4g}",
        "" if case.median_b_ms is None else f"{case.median_b_ms:.4g}",
        "" if estimate is None else f"{estimate.ratio:.3f}",
        _number(estimate.q_value) if estimate else "",
        verdict,
    ]


def print_comparison(console: Console, result: Comparison, thresholds: Thresholds) -> None:
    for comparison in result.cells:
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
        for line in _cell_lines(comparison, thresholds):
            console.print(f"  {escape(line)}")
        drift = geometric_mean_ratio(comparison)
        if drift is not None:
            console.print(f"  geometric mean of B/A over the timed cases: {drift:.3f}")
        notable = _notable(comparison)
        if notable:
            # Short figures that never wrap, and the case's name, which breaks only after
            # '::', '.', '-' or '_': it fits 80 columns. The interval, p and the samples are
            # in the files (--markdown, --json); an outcome change shows as the verdict.
            table = Table(title="cases that changed", title_justify="left")
            for column in TERMINAL_COLUMNS:
                table.add_column(column, no_wrap=column != "case", justify=_justify(column))
            for case in notable[:TERMINAL_ROWS]:
                name, *figures = _terminal_row(case)
                table.add_row(Breakable(name), *(escape(cell) for cell in figures))
            console.print(table)
            if len(notable) > TERMINAL_ROWS:
                console.print(f"  ... {len(notable) - TERMINAL_ROWS} more (--markdown/--json)")
        if comparison.functions:
            table = Table(title="functions whose verdict changed", title_justify="left")
            for column in ("function", "A", "B"):
                table.add_column(column)
            for function, left, right in comparison.functions:
                table.add_row(escape(function), left, right)
            console.print(table)
    for line in explain(result, thresholds):
        console.print(escape(line), style="dim")
    for label, lone in (("A", result.lone_a), ("B", result.lone_b)):
        for side in lone:
            console.print(
                f"[yellow]unpaired cell in {label}:[/] {escape(side.cell_id)} "
                f"({escape(str(side.path))})"
            )


def _case_json(c: CaseComparison) -> dict[str, object]:
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
        "ci95": [estimate.low, estimate.high] if estimate and estimate.low is not None else None,
        "p_value": estimate.p_value if estimate else None,
        "q_value": estimate.q_value if estimate else None,
        "method": estimate.method if estimate else None,
        "samples": [estimate.n_a, estimate.n_b] if estimate else None,
        "runs": [estimate.runs_a, estimate.runs_b] if estimate else None,
        "run_spread": estimate.run_spread if estimate else None,
        "noise_floor": estimate.noise_floor if estimate else None,
        "verdict": c.verdict,
    }


def comparison_json(result: Comparison, thresholds: Thresholds) -> dict[str, object]:
    return {
        "schema": 2,
        "kind": "comparison",
        "thresholds": {
            "slower": thresholds.slower,
            "alpha": thresholds.alpha,
            "correction": "benjamini-hochberg",
        },
        "runs": {"a": result.runs_a, "b": result.runs_b},
        "explanation": explain(result, thresholds),
        "cells": [
            {
                "a": {"cell": c.a.cell_id, "path": str(c.a.path), "env_problem": c.a.env_problem},
                "b": {"cell": c.b.cell_id, "path": str(c.b.path), "env_problem": c.b.env_problem},
                "differences": [{"what": w, "a": x, "b": y} for w, x, y in c.differences],
                "summary": _summary(c),
                "geometric_mean_ratio": geometric_mean_ratio(c),
                "noise_between_runs": _run_noise(c),
                "unpaired": dict(sorted(c.unpaired.items())),
                "functions": [{"function": f, "a": x, "b": y} for f, x, y in c.functions],
                "cases": [_case_json(item) for item in c.cases],
            }
            for c in result.cells
        ],
        "unpaired_cells": {
            "a": [s.cell_id for s in result.lone_a],
            "b": [s.cell_id for s in result.lone_b],
        },
    }


def _markdown_table(rows: Sequence[Sequence[Any]], headers: list[str]) -> str:
    return md_table(rows, headers) + "\n"


def comparison_markdown(result: Comparison, thresholds: Thresholds) -> str:
    parts: list[str] = []
    for comparison in result.cells:
        a, b = comparison.a, comparison.b
        parts.append(f"## {md_text(a.cell_id)} against {md_text(b.cell_id)}\n")
        parts.append(f"A: {md_text(a.path)}  \nB: {md_text(b.path)}\n")
        if comparison.differences:
            parts.append(_markdown_table(comparison.differences, ["", "A", "B"]))
        summary = _summary(comparison)
        parts.append(_markdown_table([list(summary.values())], list(summary)))
        parts.extend(md_text(line) + "\n" for line in _cell_lines(comparison, thresholds)[1:])
        notable = _notable(comparison)
        if notable:
            parts.append("Cases that changed:\n")
            parts.append(_markdown_table([_case_row(c) for c in notable], CASE_COLUMNS))
        if comparison.functions:
            parts.append(_markdown_table(comparison.functions, ["function", "A", "B"]))
    parts.extend(md_text(line) + "\n" for line in explain(result, thresholds))
    for label, lone in (("A", result.lone_a), ("B", result.lone_b)):
        for side in lone:
            parts.append(
                f"Unpaired cell in {label}: {md_text(side.cell_id)} ({md_text(side.path)})\n"
            )
    return "# portbench compare\n\n" + "\n".join(parts)
