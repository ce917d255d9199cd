"""Comparing two runs of a cell (or of its profiles or accelerators), case by case."""

from .pairs import CellComparison, Thresholds, compare_cells, load_side, pair_cells

__all__ = ["CellComparison", "Thresholds", "compare_cells", "load_side", "pair_cells"]
