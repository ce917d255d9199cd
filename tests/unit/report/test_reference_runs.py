"""The project's reference runs (results/reference/) stay out of a user's report unless asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.plan import plan_from_case_files, write_plan
from portbench.report import load

CASES = "from portbench_runner.api import case\n\n@case('one')\ndef one(ctx):\n    return 1\n"


def _cell(run: Path, tmp_path: Path) -> None:
    plan = plan_from_case_files(tmp_path / "work", {"ops": CASES})
    cell = run / "python-cpu-host"
    cell.mkdir(parents=True)
    write_plan(plan, cell / "plan.json")


def test_reference_runs_are_left_out_by_default_and_in_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results"
    _cell(results / "20261123-mine", tmp_path)
    _cell(results / "reference" / "20261122-theirs", tmp_path)
    monkeypatch.setattr(load, "results_dir", lambda: results)
    assert [c.path.parent.name for c in load.load_runs()] == ["20261123-mine"]
    with_reference = sorted(c.path.parent.name for c in load.load_runs(with_reference=True))
    assert with_reference == ["20261122-theirs", "20261123-mine"]
    # Named explicitly, a reference run is read like any other.
    named = load.load_runs([results / "reference" / "20261122-theirs"])
    assert [c.path.parent.name for c in named] == ["20261122-theirs"]
