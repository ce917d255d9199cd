"""Names for loaded cells, so that two runs of one cell never read as one row.

A cell's id (``framework/accelerator/profile``) names what ran, not when: a results folder
often holds two runs of ``torch/cpu/paper``. Tables name a cell by its id, followed by
``@ <run id>`` wherever another loaded cell has the same id, and by ``(<label>)`` wherever
the user named the run (``--label`` at bench time, or ``portbench report RUN_DIR=LABEL``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

from .load import Cell
from .tables import shown_path

__all__ = ["run_argument", "tell_apart", "with_label"]


def run_argument(text: str) -> tuple[Path, str]:
    """``RUN_DIR`` or ``RUN_DIR=LABEL`` as (path, label); a path that exists is taken whole,
    so a folder whose name holds ``=`` needs no quoting."""
    path = Path(text)
    if path.exists() or "=" not in text:
        return path, ""
    folder, _, label = text.rpartition("=")
    return Path(folder), label.strip()


def with_label(cells: list[Cell], label: str) -> list[Cell]:
    """The cells with ``label`` in place of their plan's (the command line has the last word)."""
    if not label:
        return cells
    return [dataclasses.replace(c, label=label) for c in cells]


def _name(cell: Cell, shared: bool, where: str = "") -> str:
    name = cell.cell_id
    if shared:
        name += f" @ {where or cell.run_id}"
    if cell.label:
        name += f" ({cell.label})"
    return name


def tell_apart(cells: list[Cell]) -> list[Cell]:
    """The cells, each with the name tables show for it (order kept)."""
    ids = Counter(c.cell_id for c in cells)
    names = [_name(c, ids[c.cell_id] > 1) for c in cells]
    # Two folders can each hold a run of the same name (results/a/run1, results/b/run1):
    # their shown paths still differ.
    repeated = Counter(names)
    names = [
        _name(c, True, shown_path(c.path.parent)) if repeated[n] > 1 else n
        for c, n in zip(cells, names)
    ]
    return [
        dataclasses.replace(c, display=n) if n != c.cell_id else c for c, n in zip(cells, names)
    ]
