"""Figures as PNG and SVG (matplotlib, no display), each drawn from a table or from the cells:

- portability per cell (the study's outcome bars), failures by category per cell (Figure 6),
  failure rate by frequency stratum (Figures 4, 5);
- per accelerator pair: a log-log scatter of function latencies (Figure 2) and the sorted
  ratios with the 10x line (Figure 3);
- per framework and profile: latency densities per accelerator (Figure 1);
- per hardware generation pair: the distribution of speed-ups (Figure 7).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..outcomes import FUNCTION_OUTCOMES, OUTCOME_LABELS
from .latency import case_latencies, geomean, latest_cells
from .load import Cell
from .tables import Table

__all__ = ["write_figures"]

COLORS = {
    "pass": "#4c9a2a",
    "partial": "#e0a100",
    "complete": "#c0392b",
    "untested": "#999999",
    "cpu_too": "#7f8c8d",
}
CATEGORY_COLORS = {
    "type": "#1f77b4",
    "not_implemented": "#ff7f0e",
    "precision": "#2ca02c",
    "memory": "#d62728",
    "timeout": "#9467bd",
    "crash": "#8c564b",
    "fallback": "#e377c2",
    "other": "#7f7f7f",
    "harness": "#17becf",
    "placement": "#bcbd22",
    "lowering": "#aec7e8",
    "refusal": "#ffbb78",
}


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, out: Path, name: str) -> list[Path]:
    paths = []
    for suffix in ("png", "svg"):
        path = out / f"{name}.{suffix}"
        # A fixed SVG hash salt and no date keep two renders of one report byte-identical.
        fig.savefig(path, dpi=100, bbox_inches="tight", metadata={"Date": None})
        paths.append(path)
    _plt().close(fig)
    return paths


def portability_figure(table: Table, out: Path) -> list[Path]:
    plt = _plt()
    cells = [row[0] for row in table.rows]
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(cells) + 1.5))
    left = [0.0] * len(cells)
    for outcome in FUNCTION_OUTCOMES:
        column = table.headers.index(OUTCOME_LABELS.get(outcome, outcome))
        totals = [max(1, int(row[3])) for row in table.rows]
        share = [100 * int(row[column]) / total for row, total in zip(table.rows, totals)]
        ax.barh(cells, share, left=left, color=COLORS[outcome], label=outcome)
        left = [a + b for a, b in zip(left, share)]
    ax.set_xlabel("functions (%)")
    ax.set_xlim(0, 100)
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=4, fontsize=8)
    ax.set_title("Portability per cell")
    return _save(fig, out, "portability")


def failure_counts(cells: list[Cell]) -> dict[str, Counter[str]]:
    """Failed cases per category, per cell that has any (the latest run of each cell)."""
    counts = {
        c.name: Counter(str(r.category) for r in c.records if r.outcome == "fail")
        for c in latest_cells(cells)
    }
    return {k: v for k, v in counts.items() if v}


def draw_failures(counts: dict[str, Counter[str]]) -> Any:
    """Small multiples: one panel per failure category, the cells down the side, each panel
    on a linear scale from zero with its counts written on the bars.

    Stacked bars on a log scale (as before) draw 10 cases half as long as 130 and make the
    upper segments' lengths meaningless; panels of their own keep every length proportional
    within a category, and the written counts carry the comparison across categories. No
    legend is needed (each panel is titled), so none can cover an axis label.
    """
    plt = _plt()
    from matplotlib.ticker import MaxNLocator

    names = sorted(counts)
    present = [c for c in CATEGORY_COLORS if any(counts[n][c] for n in names)]
    columns = min(3, len(present))
    rows = math.ceil(len(present) / columns)
    fig, axes = plt.subplots(
        rows,
        columns,
        figsize=(3.2 * columns + 1.6, (0.22 * len(names) + 1.0) * rows),
        sharey=True,
        squeeze=False,
    )
    for index, category in enumerate(present):
        ax = axes[index // columns][index % columns]
        values = [counts[n][category] for n in names]
        bars = ax.barh(names, values, color=CATEGORY_COLORS[category])
        ax.bar_label(bars, labels=[str(v) if v else "" for v in values], fontsize=6, padding=2)
        ax.set_xlim(0, max(values) * 1.25)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(category, fontsize=9)
        ax.set_xlabel("failed cases", fontsize=7)
        ax.tick_params(axis="both", labelsize=7)
    for index in range(len(present), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    axes[0][0].invert_yaxis()  # shared: the cells read top-down in name order
    fig.suptitle("Failures by category (Figure 6): one panel per category, linear scales")
    fig.tight_layout()
    return fig


def failures_figure(cells: list[Cell], out: Path) -> list[Path]:
    counts = failure_counts(cells)
    return _save(draw_failures(counts), out, "failures") if counts else []


STRATA = ["top20", "1|2", *(str(i) for i in range(1, 11))]


def strata_rates(table: Table) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Per cell with any failure: its failure rate (%) per stratum, and over all functions."""
    rates: dict[str, dict[str, float]] = defaultdict(dict)
    overall: dict[str, float] = {}
    for cell, stratum, functions, failing, _ in table.rows:
        if not functions or stratum == "?":
            continue
        if stratum == "all":
            overall[cell] = 100 * failing / functions
        else:
            rates[cell][stratum] = 100 * failing / functions
    kept = {k: v for k, v in rates.items() if any(v.values())}
    return kept, {k: overall.get(k, 0.0) for k in kept}


def strata_figure(table: Table, out: Path) -> list[Path]:
    """Small multiples, one panel per cell on one shared scale: ~14 cells drawn as lines on
    one axis could not be told apart."""
    rates, overall = strata_rates(table)
    if not rates:
        return []
    plt = _plt()
    columns = min(4, len(rates))
    rows = math.ceil(len(rates) / columns)
    fig, axes = plt.subplots(
        rows,
        columns,
        figsize=(2.6 * columns, 1.9 * rows + 0.6),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    for ax, (cell, by_stratum) in zip(axes.flat, sorted(rates.items())):
        present = [s for s in STRATA if s in by_stratum]
        ax.bar(
            [STRATA.index(s) for s in present],
            [by_stratum[s] for s in present],
            color=["#c0392b" if s == "top20" else "#4c72b0" for s in present],
        )
        ax.axhline(overall[cell], color="#444", linewidth=0.8, linestyle="--")
        ax.set_title(cell, fontsize=7)
        ax.tick_params(labelsize=6)
    axes[0][0].set_xticks(range(len(STRATA)), ["t20", "1|2", *STRATA[2:]], rotation=90)
    for index, ax in enumerate(axes.flat):
        if index >= len(rates):
            ax.set_visible(False)
        elif index + columns >= len(rates):
            # The lowest panel of its column labels the strata (the one below is empty).
            ax.tick_params(labelbottom=True)
    axes[0][0].set_ylim(0, 100)
    fig.supxlabel("frequency stratum (t20: the top 20; deciles from the rarest, 1)", fontsize=8)
    fig.supylabel("functions failing (%)", fontsize=8)
    fig.suptitle(
        "Failure rate by frequency stratum, one panel per cell (dashed: all functions; "
        "Figures 4, 5)",
        fontsize=9,
    )
    fig.tight_layout()
    return _save(fig, out, "strata")


def _pair_points(table: Table) -> tuple[list[float], list[float]]:
    xs = [float(row[2]) for row in table.rows if row[2] and row[3]]
    ys = [float(row[3]) for row in table.rows if row[2] and row[3]]
    return xs, ys


def pair_figure(table: Table, out: Path) -> list[Path]:
    """Left: log-log scatter of function latencies (Figure 2); right: the ratios sorted, with
    the 10x line (Figure 3)."""
    xs, ys = _pair_points(table)
    ratios = sorted((float(row[4]) for row in table.rows if row[4]), reverse=True)
    plt = _plt()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.scatter(xs, ys, s=10)
    low, high = min(xs + ys), max(xs + ys)
    left.plot([low, high], [low, high], color="#888", linewidth=1, label="same latency")
    left.plot(
        [low, high],
        [10 * low, 10 * high],
        color="#c0392b",
        linewidth=1,
        linestyle="--",
        label="10x slower",
    )
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel(table.headers[2], fontsize=8)
    left.set_ylabel(table.headers[3], fontsize=8)
    left.legend(fontsize=7)
    right.bar(range(len(ratios)), ratios, color=["#c0392b" if r > 1 else "#4c9a2a" for r in ratios])
    right.axhline(1, color="#444", linewidth=0.8)
    right.axhline(10, color="#c0392b", linewidth=0.8, linestyle="--")
    right.set_yscale("log")
    right.set_xlabel("functions, sorted by ratio", fontsize=8)
    right.set_ylabel(table.headers[4], fontsize=8)
    fig.suptitle(table.title, fontsize=9)
    return _save(fig, out, table.name)


def density_figures(cells: list[Cell], out: Path) -> list[Path]:
    """Per framework x profile, the distribution of function latencies per accelerator (log
    scale), as a smoothed histogram: the study's Figure 1."""
    groups: dict[tuple[str, str], list[Cell]] = defaultdict(list)
    for cell in latest_cells(cells):
        groups[(cell.framework, cell.profile)].append(cell)
    written: list[Path] = []
    for (framework, profile), group in sorted(groups.items()):
        series = {}
        for cell in group:
            per_function = [
                geomean([c.ms for c in cases.values()])
                for cases in case_latencies(cell).values()
                if cases
            ]
            if len(per_function) >= 3:
                series[cell.accelerator] = [math.log10(v) for v in per_function]
        if not series:
            continue
        plt = _plt()
        fig, ax = plt.subplots(figsize=(6, 3.5))
        low = min(min(v) for v in series.values()) - 0.5
        high = max(max(v) for v in series.values()) + 0.5
        grid = [low + (high - low) * i / 200 for i in range(201)]
        for accelerator, values in sorted(series.items()):
            # Gaussian kernel, Silverman's bandwidth: no SciPy needed for a density.
            n = len(values)
            mean = sum(values) / n
            sd = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, n - 1)) or 0.1
            h = 1.06 * sd * n ** (-1 / 5)
            density = [
                sum(math.exp(-0.5 * ((x - v) / h) ** 2) for v in values)
                / (n * h * math.sqrt(2 * math.pi))
                for x in grid
            ]
            ax.plot([10**x for x in grid], density, label=f"{accelerator} ({n} functions)")
        ax.set_xscale("log")
        ax.set_xlabel("function latency (ms)")
        ax.set_ylabel("density (per decade)")
        ax.legend(fontsize=7)
        ax.set_title(f"Latency density, {framework} ({profile}) (Figure 1)", fontsize=9)
        written += _save(fig, out, f"density-{framework}-{profile}")
    return written


def generation_figure(tables: list[Table], generations: Table, out: Path) -> list[Path]:
    pairs = {(r[0], r[1], r[2], r[3]) for r in generations.rows}
    series = {}
    for table in tables:
        for framework, profile, older, newer in pairs:
            if table.name == f"latency-{framework}-{profile}-{older}-vs-{newer}":
                # speed-up of the newer: older latency / newer latency
                series[f"{framework} {older}->{newer}"] = [
                    1 / float(r[4]) for r in table.rows if r[4]
                ]
    if not series:
        return []
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for label, speedups in sorted(series.items()):
        ax.hist([math.log2(s) for s in speedups], bins=30, alpha=0.5, label=label)
    ax.axvline(math.log2(1.5), color="#c0392b", linestyle="--", linewidth=1, label="1.5x faster")
    ax.set_xlabel("log2 speed-up of the newer generation")
    ax.set_ylabel("functions")
    ax.legend(fontsize=7)
    ax.set_title("Hardware generations (Figure 7)", fontsize=9)
    return _save(fig, out, "generations")


def write_figures(tables: list[Table], cells: list[Cell], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    by_name = {t.name: t for t in tables}
    if by_name.get("portability") and by_name["portability"].rows:
        written += portability_figure(by_name["portability"], out)
    written += failures_figure(cells, out)
    if "strata" in by_name:
        written += strata_figure(by_name["strata"], out)
    written += density_figures(cells, out)
    for table in tables:
        if (
            table.name.startswith("latency-")
            and table.name != "latency-summary"
            and len(table.rows) >= 2
        ):
            written += pair_figure(table, out)
    if "generations" in by_name:
        written += generation_figure(tables, by_name["generations"], out)
    from .versions import version_figures  # here: versions imports this module's helpers

    written += version_figures(cells, out)
    return written
