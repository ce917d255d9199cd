"""Figure 6 draws honest lengths, and study cells without outcomes say so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from portbench.report.figures import draw_failures, failure_counts, failures_figure
from portbench.report.load import load_runs
from portbench.report.study import default_archive, import_study
from portbench.report.tables import NO_OUTCOMES, portability


@pytest.fixture(scope="module")
def study_cells(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    archive = default_archive()
    if not archive.exists():
        pytest.skip(f"{archive} is not here")
    out = tmp_path_factory.mktemp("study")
    import_study(archive, out)
    return load_runs([out])


def test_figure_6_is_one_linear_panel_per_category(study_cells: list[Any], tmp_path: Path) -> None:
    counts = failure_counts(study_cells)
    fig = draw_failures(counts)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    categories = {c for counter in counts.values() for c, n in counter.items() if n}
    assert {ax.get_title() for ax in panels} == categories
    names = sorted(counts)
    for ax in panels:
        assert ax.get_xscale() == "linear" and ax.get_xlim()[0] == 0
        assert ax.get_legend() is None
        # Each bar is as long as its count: lengths are proportional.
        widths = [patch.get_width() for patch in ax.patches]
        assert widths == [counts[n][ax.get_title()] for n in names]
    paths = failures_figure(study_cells, tmp_path)
    assert sorted(p.name for p in paths) == ["failures.png", "failures.svg"]


def test_study_cells_without_outcomes_read_no_outcomes(study_cells: list[Any]) -> None:
    table = portability(study_cells)
    rows = {row[0]: row for row in table.rows}
    a100 = rows["jax/gpu-a100/study"]
    assert a100[2] == NO_OUTCOMES and a100[-3:] == ["-", "-", "-"]
    t4 = rows["jax/gpu-t4/study"]
    assert t4[2] == "complete" and t4[-3].endswith("%")
