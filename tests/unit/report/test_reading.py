"""Reading the report: two runs of one cell told apart, a run's label, names wrapped at
sensible points and headers never broken inside a word at 80 columns."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from portbench.errors import UsageError
from portbench.plan import PLAN_SCHEMA, PlanOptions, check_label, plan_from_case_files, write_plan
from portbench.report.commands import load_labelled
from portbench.report.names import run_argument, tell_apart
from portbench.report.tables import Table, portability
from portbench.report.terminal import column_groups, print_tables, to_rich
from portbench.report.wrap import fit_widths, pieces, wrap

CASES = "from portbench_runner.api import case\n\n@case('one')\ndef one(ctx):\n    return 1\n"


def _run(run: Path, tmp_path: Path, label: str | None = None) -> Path:
    plan = plan_from_case_files(tmp_path / "work", {"ops": CASES}, options=PlanOptions(label=label))
    cell = run / "python-cpu-host"
    cell.mkdir(parents=True)
    write_plan(plan, cell / "plan.json")
    return run


def test_two_runs_of_one_cell_get_distinct_names_with_run_id_and_label(tmp_path: Path) -> None:
    first = _run(tmp_path / "20261123-first", tmp_path)
    second = _run(tmp_path / "20261124-second", tmp_path)
    cells = tell_apart(load_labelled([first, f"{second}=after the fix"]))
    names = [row[0] for row in portability(cells).rows]
    assert names == [
        "python/cpu/host @ 20261123-first",
        "python/cpu/host @ 20261124-second (after the fix)",
    ]
    # One run alone keeps the plain cell id: the run id is added only where it is needed.
    assert [c.name for c in tell_apart(load_labelled([first]))] == ["python/cpu/host"]


def test_two_runs_of_the_same_name_in_two_folders_are_named_by_their_path(
    tmp_path: Path,
) -> None:
    a = _run(tmp_path / "a" / "run1", tmp_path)
    b = _run(tmp_path / "b" / "run1", tmp_path)
    names = [c.name for c in tell_apart(load_labelled([a, b]))]
    assert len(set(names)) == 2 and all(n.startswith("python/cpu/host @ ") for n in names)


def test_the_label_given_at_bench_time_is_kept_in_the_plan_and_named(tmp_path: Path) -> None:
    run = _run(tmp_path / "20261123-mine", tmp_path, label=" new driver ")
    plan = json.loads((run / "python-cpu-host" / "plan.json").read_text())
    assert plan["schema"] == PLAN_SCHEMA and plan["label"] == "new driver"
    assert [c.name for c in tell_apart(load_labelled([run]))] == ["python/cpu/host (new driver)"]
    # The command line's label has the last word.
    assert [c.label for c in load_labelled([f"{run}=mine"])] == ["mine"]
    # No label, no field: an unlabelled plan is what it was before labels existed.
    assert "label" not in plan_from_case_files(tmp_path / "w2", {"ops": CASES})


@pytest.mark.parametrize("bad", ["", "   ", "two\nlines", "x" * 81])
def test_a_label_is_one_short_printable_line(bad: str) -> None:
    with pytest.raises(UsageError, match="--label takes one line"):
        check_label(bad)


def test_run_argument_splits_a_label_off_unless_the_path_exists(tmp_path: Path) -> None:
    assert run_argument(f"{tmp_path}/run=my label") == (tmp_path / "run", "my label")
    odd = tmp_path / "run=odd"
    odd.mkdir()
    assert run_argument(str(odd)) == (odd, "")


NAME = "torch.nn.functional.scaled_dot_product_attention::basic_causal_mask"


def test_names_wrap_after_separators_and_keep_every_character() -> None:
    lines = wrap(NAME, 24)
    assert "".join(lines) == NAME
    assert all(len(line) <= 24 for line in lines)
    assert all(line.endswith((".", "_", "::")) for line in lines[:-1])
    assert pieces("12.5") == ["12.5"] and pieces("partial->pass") == ["partial->", "pass"]


def test_column_widths_give_each_column_its_longest_piece_when_there_is_room() -> None:
    assert fit_widths([(5, 10), (8, 40)], 60) == [10, 40]
    widths = fit_widths([(5, 10), (8, 40), (9, 9)], 30)
    assert widths is not None and sum(widths) <= 30 and widths[0] >= 5 and widths[1] >= 8
    assert fit_widths([(50, 60), (50, 60)], 80) is None


def _header_lines(text: str) -> list[list[str]]:
    """The header rows of the first table in ``text``, split into columns."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    end = next(i for i, line in enumerate(lines) if line.startswith("┡"))
    return [line.strip("┃").split("┃") for line in lines[start + 1 : end]]


def _broken_inside_a_piece(header: str, parts: list[str]) -> bool:
    """Whether the lines ``parts`` of a header end anywhere but after a break point."""
    allowed, at = set(), 0
    for piece in pieces(header):
        at += len(piece.replace(" ", ""))
        allowed.add(at)
    at = 0
    for part in parts:
        at += len(part.replace(" ", ""))
        if at not in allowed:
            return True
    return False


def _render(table: Table, width: int) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None)
    console.print(to_rich(table, width=console.width))
    return out.getvalue()


HEADERS = ["framework", "device", "printed", "portbench cell", "pass/partial/complete", "%"]
ROWS = [["tensorflow", "gpu", "51/0/1", f"{NAME} @ 20261124-second", "48/2/1", "94/4/2"]]


def test_an_80_column_table_breaks_no_header_inside_a_word_and_no_line_is_wider() -> None:
    text = _render(Table("t", "t", HEADERS, ROWS), 80)
    assert all(len(line) <= 80 for line in text.splitlines())
    header_rows = _header_lines(text)
    for column, header in enumerate(HEADERS):
        parts = [row[column].strip() for row in header_rows if row[column].strip()]
        assert not _broken_inside_a_piece(header, parts), (header, parts)
    # The long name is all there, cut only after its separators.
    body = "".join(line[1:-1].split("│")[3].strip() for line in text.splitlines() if "│" in line)
    assert NAME in body.replace(" ", "")


def test_rich_alone_would_break_these_headers() -> None:
    """The check above can fail: rich's own width sharing folds a header mid-word here."""
    from rich.table import Table as RichTable

    plain = RichTable(title="t")
    for header in HEADERS:
        plain.add_column(header, overflow="fold")
    plain.add_row(*ROWS[0])
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(plain)
    header_rows = _header_lines(out.getvalue())
    broken = [
        h
        for i, h in enumerate(HEADERS)
        if _broken_inside_a_piece(h, [r[i].strip() for r in header_rows if r[i].strip()])
    ]
    assert broken


def test_wide_prints_every_row_on_one_line(tmp_path: Path) -> None:
    table = Table("portability", "Portability", HEADERS, ROWS)
    out = io.StringIO()
    print_tables([table], Console(file=out, width=80, color_system=None), False, wide=True)
    assert any(re.search(re.escape(NAME), line) for line in out.getvalue().splitlines())


def test_a_table_too_wide_for_80_columns_prints_in_parts_repeating_its_first_column() -> None:
    headers = ["cell", *(f"field {i}" for i in range(1, 12))]
    rows = [[f"{NAME} @ run", *(f"value-{i}-xxxxxx" for i in range(1, 12))]]
    text = _render(Table("t", "wide table", headers, rows), 80)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    parts = [line for line in lines if "wide table (part" in line]
    assert len(parts) >= 2
    # Every part starts with the cell column, and every other column is in exactly one part.
    assert text.count("┃ cell") == len(parts)
    for value in rows[0][1:]:
        assert sum(value in line for line in lines) == 1, value


def test_parts_fall_back_to_blocks_when_two_columns_cannot_stand_side_by_side() -> None:
    assert column_groups([(10, 20), (30, 40), (30, 30)], 120) == [[0, 1, 2]]
    assert column_groups([(10, 20), (30, 40), (30, 30)], 80) == [[0, 1], [0, 2]]
    assert column_groups([(40, 40), (40, 40)], 80) is None
    long = "x" * 40
    text = _render(Table("t", "blocks", ["a", "b"], [[long, long + "y"]]), 80)
    assert "one block per row" in text and all(len(line) <= 80 for line in text.splitlines())
    assert any(long + "y" in line for line in text.splitlines())
