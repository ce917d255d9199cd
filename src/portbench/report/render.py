"""Writing tables: rich in the terminal; Markdown, LaTeX (booktabs), CSV and JSON files; one
static index.html that works opened from disk (no server, no network)."""

from __future__ import annotations

import base64
import csv
import html
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table as RichTable
from tabulate import tabulate

from .tables import Table
from .wrap import Breakable, fit_widths, pieces, span

__all__ = ["to_rich", "write_files", "write_html"]


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def _blocks(table: Table, rows: list[list[str]], width: int) -> RichTable:
    """A table too wide for ``width`` even with every word kept whole: one block per row,
    a field per line, so that nothing breaks inside a word and nothing is cut."""
    hint = f"one block per row: too wide for {width} columns (--wide: one line per row)"
    rich = RichTable(
        title=table.title,
        caption=f"{table.note}; {hint}" if table.note else hint,
        show_header=False,
    )
    spans = [span("\n".join(table.headers)), span("\n".join(v for r in rows for v in r))]
    # Two columns need 3 borders and 4 cells of padding; narrower still, rich folds.
    fitted = fit_widths(spans, width - 3 - 4)
    widths: list[int | None] = [*fitted] if fitted else [None, None]
    rich.add_column(style="bold", width=widths[0])
    rich.add_column(width=widths[1])
    for row in rows:
        fields = [(h, v) for h, v in zip(table.headers, row) if v != ""]
        for index, (header, value) in enumerate(fields):
            rich.add_row(Breakable(header), Breakable(value), end_section=index == len(fields) - 1)
    return rich


def to_rich(table: Table, limit: int | None = None, width: int | None = None) -> RichTable:
    """The table for the terminal. With ``width`` (the console's), long names wrap at
    sensible points and no column is narrower than its longest word; a table that cannot
    be so at this width is printed one block per row. Without, every row stays on one line
    (``--wide``)."""
    rows = [
        [_cell(v) for v in row] for row in (table.rows if limit is None else table.rows[:limit])
    ]
    if limit is not None and len(table.rows) > limit:
        rows.append(
            [f"... {len(table.rows) - limit} more (--full)", *([""] * (len(table.headers) - 1))]
        )
    if width is None:
        rich = RichTable(title=table.title, caption=table.note or None)
        for header in table.headers:
            rich.add_column(header, no_wrap=True)
        for row in rows:
            rich.add_row(*row)
        return rich
    spans = [span("\n".join([h, *(r[i] for r in rows)])) for i, h in enumerate(table.headers)]
    # rich adds one cell per border and one of padding on each side of every column.
    widths = fit_widths(spans, width - (len(table.headers) + 1) - 2 * len(table.headers))
    if widths is None:
        return _blocks(table, rows, width)
    rich = RichTable(title=table.title, caption=table.note or None)
    for header, column_width in zip(table.headers, widths):
        rich.add_column(Breakable(header), width=column_width)
    for row in rows:
        rich.add_row(*(Breakable(v) for v in row))
    return rich


def write_files(table: Table, out: Path) -> list[Path]:
    """<name>.md, .tex, .csv and .json for one table."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [[_cell(v) for v in row] for row in table.rows]
    paths = []
    md = out / f"{table.name}.md"
    md.write_text(
        f"## {table.title}\n\n{tabulate(rows, table.headers, tablefmt='github')}\n\n{table.note}\n",
        encoding="utf-8",
    )
    tex = out / f"{table.name}.tex"
    tex.write_text(
        tabulate(rows, table.headers, tablefmt="latex_booktabs") + "\n", encoding="utf-8"
    )
    csv_path = out / f"{table.name}.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(table.headers)
        writer.writerows(rows)
    js = out / f"{table.name}.json"
    js.write_text(
        json.dumps(
            {
                "title": table.title,
                "headers": table.headers,
                "rows": table.rows,
                "note": table.note,
            },
            indent=2,
            default=str,
        ),
        encoding="utf-8",
    )
    paths += [md, tex, csv_path, js]
    return paths


def _breaking(text: str) -> str:
    """``text`` escaped, with a break opportunity (<wbr>) at each sensible point: a narrow
    window wraps ``torch.nn.functional.conv2d::basic`` after a dot, never inside a word."""
    return "<wbr>".join(html.escape(p) for p in pieces(text))


def _png_width(data: bytes) -> int:
    # The IHDR chunk, always first, holds the width at bytes 16-20.
    return int.from_bytes(data[16:20], "big") if data[:8] == b"\x89PNG\r\n\x1a\n" else 0


def _html_table(table: Table) -> list[str]:
    parts = [f"<h2 id='{html.escape(table.name)}'>{html.escape(table.title)}</h2>"]
    if table.note:
        parts.append(f"<p class='note'>{html.escape(table.note)}</p>")
    body = [
        "<div class='scroll'><table><tr>",
        *(f"<th>{_breaking(h)}</th>" for h in table.headers),
        "</tr>",
    ]
    for row in table.rows:
        body.append("<tr>" + "".join(f"<td>{_breaking(_cell(v))}</td>" for v in row) + "</tr>")
    body.append("</table></div>")
    if len(table.rows) > 25:
        # Long tables fold; every row is still in the page (and in tables/<name>.csv).
        parts.append(f"<details><summary>{len(table.rows)} rows</summary>")
        parts.extend(body)
        parts.append("</details>")
    else:
        parts.extend(body)
    return parts


#: Navigation sections, by table name prefix (first match wins).
SECTIONS = (
    ("The study", ("published-", "study-")),
    ("Portability", ("portability", "strata", "failures")),
    ("Latency", ("latency-", "generations")),
    ("Versions", ("versions-",)),
    ("Curation and provenance", ("curation", "provenance")),
)


def section_of(name: str) -> str:
    for title, prefixes in SECTIONS:
        if name.startswith(prefixes):
            return title
    return "Other"


def _nav(tables: list[Table]) -> str:
    """Links grouped by section, one line each (not one block of every table's name)."""
    groups: dict[str, list[Table]] = {}
    for table in tables:
        groups.setdefault(section_of(table.name), []).append(table)
    lines = []
    for title in [s for s, _ in SECTIONS] + ["Other"]:
        if title in groups:
            links = "".join(
                f"<a href='#{html.escape(t.name)}'>{html.escape(t.name)}</a>" for t in groups[title]
            )
            lines.append(f"<div><b>{html.escape(title)}</b> {links}</div>")
    return "<nav>" + "".join(lines) + "</nav>"


#: One stylesheet for desktop and phone: tables scroll sideways inside their own box, figures
#: shrink to the window, the navigation's section names go above their links when narrow.
STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:1400px}"
    "div.scroll{overflow-x:auto;margin:0.5em 0 1.5em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;vertical-align:top}"
    "th{background:#f0f0f0}p.note{color:#555}"
    "figure{display:inline-block;margin:0.5em;vertical-align:top;max-width:640px}"
    "figure.wide{max-width:100%}figure img{max-width:100%;height:auto}"
    "figcaption{font-size:12px;color:#555}"
    "nav div{margin:0.3em 0}nav b{display:inline-block;min-width:12em;font-size:13px}"
    "nav a{margin-right:1em;font-size:13px;white-space:nowrap;display:inline-block}"
    "@media (max-width:600px){body{margin:0.6em}nav b{display:block}"
    "figure{margin:0.5em 0}h1{font-size:1.5em}h2{font-size:1.15em}}"
)


def write_html(
    tables: list[Table], out: Path, summary: str, figures: list[Path] | None = None
) -> Path:
    """One self-contained page: figures embedded as data URIs, tables inline, no script and
    nothing fetched, so it works opened from disk and archived as one file."""
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        "<title>portbench report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>portbench report</h1>",
        f"<p>{html.escape(summary)}</p>",
        _nav([t for t in tables if t.rows]),
        "<h2 id='figures'>Figures</h2>",
    ]
    for figure in figures or []:
        png = figure.with_suffix(".png")
        raw = png.read_bytes()
        data = base64.b64encode(raw).decode("ascii")
        # Small multiples are drawn wide: shown at their own width (up to the page's).
        kind = " class='wide'" if _png_width(raw) > 800 else ""
        parts.append(
            f"<figure{kind}><img alt='{html.escape(png.stem)}' "
            f"src='data:image/png;base64,{data}'>"
            f"<figcaption>{html.escape(png.stem)} (figures/{html.escape(png.stem)}.svg)"
            "</figcaption></figure>"
        )
    for table in tables:
        if table.rows:
            parts.extend(_html_table(table))
    parts.append("</body></html>")
    path = out / "index.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


SUMMARY_TABLES = (
    "portability",
    "published-outcomes",
    "failures",
    "latency-summary",
    "published-latency",
    "generations",
)


def print_tables(tables: list[Table], console: Console, full: bool, wide: bool = False) -> None:
    """The short summary (portability, the study beside us, failures, latency across
    accelerators and generations, first rows only), or every table in full; wrapped to the
    console's width, or each at its natural width (``wide``)."""
    for table in tables:
        wanted = full or table.name in SUMMARY_TABLES
        if not (wanted and (table.rows or table.name == "portability")):
            continue
        limit = None if full else 12
        if wide:
            rich = to_rich(table, limit)
            natural = Measurement.get(console, console.options.update_width(10**6), rich)
            # print(width=...) never goes past the console's width: widen the console itself.
            width = console.width
            console.width = max(width, natural.maximum)
            try:
                console.print(rich)
            finally:
                console.width = width
        else:
            console.print(to_rich(table, limit, console.width))
