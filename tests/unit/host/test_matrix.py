"""The matrix covers the most specific present id per flavor and lists what it cannot reach."""

from __future__ import annotations

import pytest

from portbench.accelerators import Accelerator, load_accelerators
from portbench.commands import matrix


def test_specific_gpu_id_wins_and_absent_ones_are_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_present(acc: Accelerator) -> tuple[bool, str]:
        if acc.flavor == "cpu":
            return True, "cpu"
        if acc.id in ("gpu", "gpu-h100"):
            return True, "NVIDIA H100 80GB HBM3"
        return False, "not here"

    monkeypatch.setattr(matrix, "is_present", fake_present)
    reachable, out = matrix.reachable_accelerators(load_accelerators())
    assert sorted(a.id for a in reachable) == ["cpu", "gpu-h100"]
    assert out["gpu"] == "covered by gpu-h100"
    assert out["tpu-v3"].startswith("not present")
    assert set(out) | {a.id for a in reachable} == set(load_accelerators())


def test_matrix_json_holds_the_total_and_each_cells_wall_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    import argparse
    import json
    from pathlib import Path

    from portbench.cellrun import CellRunResult
    from portbench.errors import CellFailed

    asked = []
    labels = []

    def fake_run_cell(request, console):
        asked.append(request.options.timing)
        labels.append(request.options.label)
        if request.framework == "tensorflow":
            raise CellFailed("tensorflow cell failed")
        counts = {"pass": 1, "partial": 0, "complete": 0, "untested": 0}
        return CellRunResult(Path("x"), 0, {"pass": 1}, counts, 1.5)

    monkeypatch.setattr(matrix, "is_present", lambda acc: (acc.id == "cpu", "cpu"))
    monkeypatch.setattr(matrix, "run_cell", fake_run_cell)
    args = argparse.Namespace(
        profile="current",
        frameworks=["jax", "tensorflow"],
        backend="auto",
        run_dir=tmp_path,
        timing="fixed",
        functions=[],
        case=[],
        label="nightly",
    )
    assert matrix._matrix(args) == 1
    assert labels and set(labels) == {"nightly"}  # every cell's plan carries the run's label
    document = json.loads((tmp_path / "matrix.json").read_text())
    ran = {c["cell"]: c for c in document["cells"] if c["status"] != "unreachable"}
    assert ran["jax/cpu/current"]["cell_wall_s"] == 1.5
    assert ran["jax/cpu/current"]["wall_s"] >= 0
    assert ran["tensorflow/cpu/current"]["status"] == "failed"
    assert "wall_s" in ran["tensorflow/cpu/current"]
    assert document["wall_s"] >= 0 and document["timing"] == "fixed"
    assert asked == [{"mode": "fixed"}, {"mode": "fixed"}]
    # The default mode stays implicit, as bench leaves it, so the two kinds of cell pair.
    asked.clear()
    args.timing, args.run_dir = "adaptive", tmp_path / "adaptive"
    matrix._matrix(args)
    assert asked == [{}, {}]
