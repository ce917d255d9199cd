"""Markdown cells are inert text: no HTML, no cell or row ended early."""

from __future__ import annotations

from portbench.report.markdown import md_table, md_text


def test_markup_in_a_cell_is_text() -> None:
    assert md_text("<b>x</b> & y") == "&lt;b&gt;x&lt;/b&gt; &amp; y"
    assert md_text("a|b\nc\r\nd") == "a\\|b c  d"
    assert md_text("`<img>`") == "\\`&lt;img&gt;\\`"
    assert md_text("\\|") == "\\\\\\|"
    assert md_text(None) == ""


def test_a_table_keeps_one_row_per_row() -> None:
    table = md_table([["1", "x\n| y |"]], ["n", "text"])
    assert len(table.splitlines()) == 3
