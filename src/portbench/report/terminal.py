"""The report in the terminal: tables that fit the console's width without breaking a word.

A table whose columns fit side by side, each at least as wide as its longest unbreakable
piece, is one table with names wrapped at sensible points (:mod:`.wrap`). One that does not
is printed in parts of a few columns each, every part repeating the first column (the cell
or function a row is about), the way R prints a wide data frame; only when not even the
first column and one other fit does it fall back to one block per row. ``--wide`` prints
each table at its natural width instead, one line per row.
"""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table as RichTable

from .tables import Table
from .wrap import Breakable, fit_widths, span

__all__ = ["SUMMARY_TABLES", "column_groups", "print_tables", "to_rich"]

SUMMARY_TABLES = (
    "portability",
    "published-outcomes",
    "failures",
    "failures-categories",
    "fallbacks",
    "latency-summary",
    "published-latency",
    "generations",
)


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def _room(columns: int, width: int) -> int:
    # rich adds one cell per border and one of padding on each side of every column.
    return width - (columns + 1) - 2 * columns


def column_groups(spans: list[tuple[int, int]], width: int) -> list[list[int]] | None:
    """Column indexes in parts that fit ``width``, the first column in every part; None
    when the first column and some other do not fit together even at their minimums.

    A part takes columns while they fit at their natural width beside the first column at
    its minimum: short values then stay on one line, and only the first (a name) wraps.
    """
    first = spans[0][0]
    groups: list[list[int]] = []
    for index in range(1, len(spans)):
        group = groups[-1] if groups else []
        if group and first + sum(spans[i][1] for i in [*group, index]) <= _room(
            len(group) + 2, width
        ):
            group.append(index)
        elif first + min(spans[index]) <= _room(2, width):
            groups.append([index])
        else:
            return None
    return [[0, *group] for group in groups] or [[0]]


def _blocks(table: Table, rows: list[list[str]], width: int) -> RichTable:
    """One block per row, a field per line: nothing breaks inside a word, nothing is cut."""
    hint = f"one block per row: too wide for {width} columns (--wide: one line per row)"
    rich = RichTable(
        title=table.title,
        caption=f"{table.note}; {hint}" if table.note else hint,
        show_header=False,
    )
    spans = [span("\n".join(table.headers)), span("\n".join(v for r in rows for v in r))]
    fitted = fit_widths(spans, _room(2, width))
    # Narrower than even this, rich folds (a terminal a few words wide).
    widths: list[int | None] = [*fitted] if fitted else [None, None]
    rich.add_column(style="bold", width=widths[0])
    rich.add_column(width=widths[1])
    for row in rows:
        fields = [(h, v) for h, v in zip(table.headers, row) if v != ""]
        for index, (header, value) in enumerate(fields):
            rich.add_row(Breakable(header), Breakable(value), end_section=index == len(fields) - 1)
    return rich


def _fitted(
    title: str, caption: str, headers: list[str], rows: list[list[str]], widths: list[int]
) -> RichTable:
    rich = RichTable(title=title or None, caption=caption or None)
    for header, column_width in zip(headers, widths):
        rich.add_column(Breakable(header), width=column_width)
    for row in rows:
        rich.add_row(*(Breakable(v) for v in row))
    return rich


def to_rich(table: Table, limit: int | None = None, width: int | None = None) -> RenderableType:
    """The table for a console ``width`` wide, or at its natural width (None: ``--wide``)."""
    shown = table.rows if limit is None else table.rows[:limit]
    rows = [[_cell(v) for v in row] for row in shown]
    if limit is not None and len(table.rows) > limit:
        more = f"... {len(table.rows) - limit} more (--full)"
        rows.append([more, *([""] * (len(table.headers) - 1))])
    if width is None:
        rich = RichTable(title=table.title, caption=table.note or None)
        for header in table.headers:
            rich.add_column(header, no_wrap=True)
        for row in rows:
            rich.add_row(*row)
        return rich
    spans = [span("\n".join([h, *(r[i] for r in rows)])) for i, h in enumerate(table.headers)]
    widths = fit_widths(spans, _room(len(spans), width))
    if widths is not None:
        return _fitted(table.title, table.note, table.headers, rows, widths)
    groups = column_groups(spans, width)
    if groups is None:
        return _blocks(table, rows, width)
    parts: list[RenderableType] = []
    for number, group in enumerate(groups, 1):
        part = [spans[i] for i in group]
        fitted = fit_widths(part, _room(len(part), width)) or [low for low, _ in part]
        title = f"{table.title} (part {number} of {len(groups)})"
        note = table.note if number == len(groups) else ""
        parts.append(
            _fitted(
                title,
                note,
                [table.headers[i] for i in group],
                [[row[i] for i in group] for row in rows],
                fitted,
            )
        )
    return Group(*parts)


def print_tables(tables: list[Table], console: Console, full: bool, wide: bool = False) -> None:
    """The short summary (portability, the study beside us, failures, latency across
    accelerators and generations, first rows only), or every table in full; fitted to the
    console's width, or each at its natural width (``wide``)."""
    for table in tables:
        wanted = full or table.name in SUMMARY_TABLES
        if not (wanted and (table.rows or table.name == "portability")):
            continue
        limit = None if full else 12
        if not wide:
            console.print(to_rich(table, limit, console.width))
            continue
        rich = to_rich(table, limit)
        natural = Measurement.get(console, console.options.update_width(10**6), rich)
        # print(width=...) never goes past the console's width: widen the console itself.
        width = console.width
        console.width = max(width, natural.maximum)
        try:
            console.print(rich)
        finally:
            console.width = width
