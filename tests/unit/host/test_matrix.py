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
