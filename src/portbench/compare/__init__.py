"""Comparing runs of a cell (or of its profiles or accelerators), case by case."""

from .pairs import CellComparison, Thresholds, compare_cells, load_side, pair_cells
from .runs import Comparison, compare_runs

__all__ = [
    "CellComparison",
    "Comparison",
    "Thresholds",
    "compare_cells",
    "compare_runs",
    "load_side",
    "pair_cells",
]
