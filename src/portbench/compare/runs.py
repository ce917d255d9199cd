"""Several runs a side: ``portbench compare A1 A2 A3 --vs B1 B2 B3``.

The first run named on a side holds the cells compared; the same cell in each further run
of that side adds its samples and its median (asv takes several runs of a benchmark the same
way). Two runs of one side differ only by noise, so their spread is the noise between runs,
measured rather than assumed away: :mod:`.stats` calls a change only where it exceeds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .pairs import CellComparison, CellSide, Thresholds, compare_cells, load_side, pair_cells
from .verdicts import decide

__all__ = ["Comparison", "compare_runs"]


@dataclass(frozen=True)
class Comparison:
    cells: list[CellComparison]
    lone_a: list[CellSide]
    lone_b: list[CellSide]
    runs_a: int
    runs_b: int


def _load(paths: Sequence[Path], label: str) -> list[list[CellSide]]:
    seen: dict[Path, Path] = {}
    runs = []
    for path in paths:
        key = path.resolve()
        if key in seen:
            raise UsageError(
                f"{path} is named twice on side {label}: each run counts once; name each run once"
            )
        seen[key] = path
        runs.append(load_side(path))
    return runs


def _more(first: CellSide, runs: list[list[CellSide]]) -> list[CellSide]:
    """``first``'s cell in each further run of its side (a run without it adds nothing)."""
    return [side for run in runs[1:] for side in run if side.cell_id == first.cell_id]


def compare_runs(
    paths_a: Sequence[Path], paths_b: Sequence[Path], thresholds: Thresholds
) -> Comparison:
    """Pair the cells of the first run of each side; compare them with every run's samples;
    decide every case's verdict over the whole comparison."""
    runs_a, runs_b = _load(paths_a, "A"), _load(paths_b, "B")
    pairs, lone_a, lone_b = pair_cells(runs_a[0], runs_b[0])
    if not pairs:
        raise UsageError(
            f"no cell of {paths_a[0]} pairs with a cell of {paths_b[0]} (same cell, or same "
            "framework); pass two cells of one framework"
        )
    cells = [compare_cells(a, b, thresholds, _more(a, runs_a), _more(b, runs_b)) for a, b in pairs]
    decide(cells, thresholds)
    return Comparison(cells, lone_a, lone_b, len(runs_a), len(runs_b))
