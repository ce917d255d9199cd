"""The version report from synthetic cells written through the contract's types
(benchmarks/store_data.py's release sweep): portability per release, transitions with what
else moved, new failures, warm trends with compare's verdicts, a release a sweep skipped,
and the figure."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

from store_data import TORCH, CaseSpec, CellSpec, sweep, write_cell

from portbench.releases.spec import Release
from portbench.report.load import Cell, find_cells, load_cell
from portbench.report.tables import Table
from portbench.report.versions import release_runs, release_tables, version_figures
from portbench.sweep.state import Settled, SweepPlan, record_settled, write_sweep_plan


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> list[Cell]:
    root = tmp_path_factory.mktemp("sweep")
    sweep(root)
    # A sweep that listed 2.14.1 too, which did not install: settled beside 2.13.0's cell.
    run = root / "sweep-torch-2.13.0"
    releases = tuple(Release("torch", v) for v in ("2.13.0", "2.14.1"))
    write_sweep_plan(run, SweepPlan("torch", "cpu", releases))
    record_settled(run, Settled("torch==2.13.0", "landed", cell="torch-cpu-current"))
    record_settled(
        run,
        Settled("torch==2.14.1", "skipped", reason="torch==2.14.1 has no wheel for Python 3.13"),
    )
    return [load_cell(p) for p in find_cells([root])]


def _table(tables: list[Table], name: str) -> Table:
    return next(t for t in tables if t.name == name)


def test_each_framework_lists_its_releases_in_order_with_python_numpy_and_skips(
    cells: list[Cell],
) -> None:
    groups = release_runs(cells)
    # Predicted cells (jax on tpu) are another kind of evidence: no group of their own.
    assert sorted(groups) == [("jax", "cpu"), ("torch", "cpu")]
    table = _table(release_tables(cells), "versions-torch-cpu-releases")
    versions = [row[0] for row in table.rows]
    assert versions == sorted([*TORCH, "2.14.1"], key=lambda v: Release("torch", v).parsed)
    first = table.rows[0]
    assert first[:3] == ["1.12.0", "3.9.2", "1.23.5"]
    assert (first[3], first[4], first[5], first[6]) == (3, 2, 0, 0)  # log1p, erf partial
    skipped = next(row for row in table.rows if row[0] == "2.14.1")
    assert skipped[7] == "skipped: torch==2.14.1 has no wheel for Python 3.13"
    # The newest 2.15.0 is the later run (second host, a flaky add::float16 in it).
    newest = table.rows[-1]
    assert newest[:3] == ["2.15.0", "3.11.7", "2.4.6"]


def test_transitions_name_their_step_and_what_else_moved(cells: list[Cell]) -> None:
    rows = _table(release_tables(cells), "versions-torch-cpu-transitions").rows
    found = {(r[0], r[1], r[2], r[3]): r for r in rows}
    log1p = found[("function", "torch.log1p", "2.0.1 -> 2.1.2", "became portable")]
    assert log1p[4:] == ["partial", "pass", "-"]
    assert ("case", "torch.log1p::float16", "2.0.1 -> 2.1.2", "became portable") in found
    # The step over the release that did not install names it, and the Python that moved.
    broke = found[
        ("case", "torch.cumsum::bfloat16", "2.13.0 -> 2.15.0 (2.14.1 did not install)", "broke")
    ]
    assert broke[6] == "Python 3.11.2 -> 3.11.7"
    assert ("function", "torch.add", "2.13.0 -> 2.15.0 (2.14.1 did not install)", "broke") in found
    # erf::int32 fails in every release: no transition.
    assert not [r for r in rows if r[1] == "torch.erf::int32"]
    jax = _table(release_tables(cells), "versions-jax-cpu-transitions")
    assert jax.rows == []


def test_new_failures_are_listed_per_step_for_classification(cells: list[Cell]) -> None:
    rows = _table(release_tables(cells), "versions-torch-cpu-new-failures").rows
    assert [r[:4] for r in rows] == [
        ["2.13.0 -> 2.15.0 (2.14.1 did not install)", "torch.add", "precision",
         "flaky: tolerance exceeded once"],
        ["2.13.0 -> 2.15.0 (2.14.1 did not install)", "torch.cumsum", "precision",
         "cumsum: result outside tolerance (max abs diff 0.5)"],
    ]  # fmt: skip


def test_warm_trends_carry_compares_verdict_and_mark_too_few_samples(
    tmp_path: Path, cells: list[Cell]
) -> None:
    rows = {r[0]: r for r in _table(release_tables(cells), "versions-torch-cpu-trends").rows}
    step = rows["2.3.1 -> 2.4.1"]
    assert step[1] == 1 and "torch.sort::float32 x2" in step[5]  # twice as slow
    assert rows["1.12.0 -> 1.13.1"][1:3] == [0, 0]
    # Cells without warm samples (a --no-timing sweep) are marked, never compared.
    cold = [CaseSpec("jax.numpy.sin::float32"), CaseSpec("jax.numpy.sin::float64")]
    for position, release in enumerate(("0.4.13", "0.4.20")):
        write_cell(tmp_path, CellSpec("jax", "cpu", release, cold, profile=f"jax-{release}",
                   started_at=f"2026-11-2{position}T10:00:00.000+00:00"), "cold")  # fmt: skip
    mine = [load_cell(p) for p in find_cells([tmp_path / "cold"])]
    trend = _table(release_tables(mine), "versions-jax-cpu-trends").rows
    assert trend == [["0.4.13 -> 0.4.20", 0, 0, 0, 2, ""]]


def test_the_figure_shows_functions_that_are_not_portable_everywhere(
    tmp_path: Path, cells: list[Cell]
) -> None:
    written = version_figures(cells, tmp_path)
    assert sorted(p.name for p in written) == ["versions-torch-cpu.png", "versions-torch-cpu.svg"]
    svg = (tmp_path / "versions-torch-cpu.svg").read_text()
    for shown in ("torch.log1p", "torch.erf", "torch.cumsum", "did not run"):
        assert shown in svg
    assert "torch.sort" not in svg and "not shown: 1 function(s) portable in every" in svg
