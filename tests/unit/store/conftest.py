"""The store tests' common cells: written once here, added to by the tests that need more."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cells import CaseSpec, CellSpec, write_cell


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """``tmp_path/runs``: run r1 a torch CPU cell (a pass with timing samples, a failure, and
    torch.mul planned with no case), run r2 a jax CPU cell. Two cells, three records."""
    folder = tmp_path / "runs"
    torch_cases = [
        CaseSpec("torch.add::a", samples_ms=(0.1, 0.2)),
        CaseSpec("torch.add::b", "fail", "boom"),
    ]
    write_cell(
        folder, CellSpec("torch", "cpu", "2.13.0", torch_cases, extra_functions=["torch.mul"]), "r1"
    )
    write_cell(folder, CellSpec("jax", "cpu", "0.6.2", [CaseSpec("jax.numpy.add::a")]), "r2")
    return folder
