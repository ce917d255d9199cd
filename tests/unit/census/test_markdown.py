"""A census error with a '|' in it stays one Markdown table cell."""

from __future__ import annotations

from pathlib import Path

from portbench.report.render import write_files
from portbench.report.tables import Table


def test_a_pipe_in_a_cell_does_not_split_the_markdown_row(tmp_path: Path) -> None:
    table = Table("t", "T", ["operator", "first error"], [["add", "expected Tensor | None"]])
    write_files(table, tmp_path)
    row = (tmp_path / "t.md").read_text().splitlines()[4]
    assert row.count("|") - row.count("\\|") == 3
    assert "Tensor | None" in (tmp_path / "t.csv").read_text()
