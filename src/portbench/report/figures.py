"""Figures as PNG and SVG (matplotlib, no display): portability bars and, per accelerator
pair, a log-log latency scatter (the study's Figures 1, 2 and the portability charts)."""

from __future__ import annotations

from pathlib import Path

from .tables import Table

__all__ = ["write_figures"]

COLORS = {"pass": "#4c9a2a", "partial": "#e0a100", "complete": "#c0392b", "untested": "#999999"}


def _save(fig: object, out: Path, name: str) -> list[Path]:
    import matplotlib.pyplot as plt

    paths = []
    for suffix in ("png", "svg"):
        path = out / f"{name}.{suffix}"
        fig.savefig(path, dpi=120, bbox_inches="tight")  # type: ignore[attr-defined]
        paths.append(path)
    plt.close(fig)  # type: ignore[arg-type]
    return paths


def portability_figure(table: Table, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = [row[0] for row in table.rows]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(cells) + 1.5))
    left = [0.0] * len(cells)
    for outcome in ("pass", "partial", "complete", "untested"):
        column = table.headers.index(outcome)
        totals = [max(1, int(row[3])) for row in table.rows]
        share = [100 * int(row[column]) / total for row, total in zip(table.rows, totals)]
        ax.barh(cells, share, left=left, color=COLORS[outcome], label=outcome)
        left = [a + b for a, b in zip(left, share)]
    ax.set_xlabel("functions (%)")
    ax.set_xlim(0, 100)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=4, fontsize=8)
    ax.set_title("Portability per cell")
    return _save(fig, out, "portability")


def latency_figure(table: Table, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [float(row[2]) for row in table.rows if row[2] and row[3]]
    ys = [float(row[3]) for row in table.rows if row[2] and row[3]]
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(xs, ys, s=12)
    low, high = min(xs + ys), max(xs + ys)
    ax.plot([low, high], [low, high], color="#888", linewidth=1, label="same latency")
    ax.plot(
        [low, high],
        [10 * low, 10 * high],
        color="#c0392b",
        linewidth=1,
        linestyle="--",
        label="10x slower",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(table.headers[2])
    ax.set_ylabel(table.headers[3])
    ax.legend(fontsize=8)
    ax.set_title(table.title, fontsize=9)
    return _save(fig, out, table.name)


def write_figures(tables: list[Table], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for table in tables:
        if table.name == "portability" and table.rows:
            written += portability_figure(table, out)
        elif table.name.startswith("latency-") and len(table.rows) >= 2:
            written += latency_figure(table, out)
    return written
