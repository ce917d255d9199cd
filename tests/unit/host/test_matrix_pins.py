"""A matrix on a machine whose accelerator some frameworks are not pinned for (an Apple GPU:
torch only) runs the cells that are, and lists the others as not pinned, not failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from portbench import cli
from portbench.commands import matrix


def test_a_framework_the_profile_pins_nothing_for_is_listed_not_failed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from portbench.cellrun import CellRunResult

    ran: list[tuple[str, str]] = []

    def fake_run_cell(request: Any, console: Any) -> CellRunResult:
        ran.append((request.framework, request.accelerator))
        counts = {"pass": 1, "partial": 0, "complete": 0, "untested": 0}
        return CellRunResult(tmp_path, 0, {"pass": 1}, counts, 0.1)

    monkeypatch.setattr(matrix, "is_present", lambda acc: (acc.id in ("cpu", "mps"), acc.id))
    monkeypatch.setattr(matrix, "run_cell", fake_run_cell)
    run = tmp_path / "run"
    code = cli.main(["matrix", "--run-dir", str(run)])
    assert "Traceback" not in capsys.readouterr().err
    assert code == 0
    assert sorted(ran) == [
        ("jax", "cpu"),
        ("tensorflow", "cpu"),
        ("torch", "cpu"),
        ("torch", "mps"),
    ]
    cells = {c["cell"]: c for c in json.loads((run / "matrix.json").read_text())["cells"]}
    assert cells["torch/mps/current"]["status"] == "complete"
    for framework in ("jax", "tensorflow"):
        assert cells[f"{framework}/mps/current"]["status"] == "not pinned"
        assert cells[f"{framework}/mps/current"]["reason"].startswith(
            f"profile 'current' pins no {framework} build for mps (no {framework}-mps.txt"
        )
