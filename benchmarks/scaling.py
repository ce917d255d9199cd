"""Scaling: cell wall time against the number of cases (linear?), and k cells in parallel."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _common import Row, check_exit, read_records, supervise, write_cell

# A case with a fixed amount of work (about a millisecond of warm timing), so wall time
# grows visibly with the number of cases.
BODY = "    ctx.measure(sum, range(1000))"


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    intercept = my - slope * mx
    ss_res = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    return slope, intercept, 1 - ss_res / ss_tot if ss_tot else 1.0


def _cells(k: int, n: int) -> float:
    """Wall seconds for ``k`` cells of ``n`` cases run at once (each one checked complete)."""
    cells = []
    start = time.perf_counter()
    for _ in range(k):
        root = Path(tempfile.mkdtemp(prefix="portbench-scale-"))
        cell_dir = root / "run"
        cells.append((supervise(write_cell(root, n, BODY), cell_dir), cell_dir))
    for proc, _cell_dir in cells:
        proc.wait()
    wall = time.perf_counter() - start
    for proc, cell_dir in cells:
        check_exit(proc, cell_dir)
        read_records(cell_dir, n)
    return wall


def run(quick: bool = False) -> list[Row]:
    sizes = [50, 100, 200, 400] if quick else [100, 200, 400, 800]
    walls = [_cells(1, n) for n in sizes]
    rows = [Row("scaling", f"{n} cases", w, "s") for n, w in zip(sizes, walls)]
    slope, intercept, r2 = _fit([float(n) for n in sizes], walls)
    rows.append(
        Row(
            "scaling",
            "linear fit: ms per case",
            slope * 1e3,
            "ms",
            note=f"intercept {intercept:.2f} s, R^2 {r2:.4f}",
        )
    )
    base = None
    for k in (1, 2, 4):
        wall = _cells(k, sizes[1])
        base = base or wall
        rows.append(
            Row(
                "scaling",
                f"{k} cells of {sizes[1]} cases in parallel",
                wall,
                "s",
                reference=base,
                ratio=wall / base,
                note="2 cores here",
            )
        )
    return rows
