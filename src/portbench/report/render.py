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
from rich.table import Table as RichTable
from tabulate import tabulate

from .tables import Table

__all__ = ["to_rich", "write_files", "write_html"]


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def to_rich(table: Table, limit: int | None = None) -> RichTable:
    rich = RichTable(title=table.title, caption=table.note or None)
    for header in table.headers:
        rich.add_column(header, overflow="fold")
    rows = table.rows if limit is None else table.rows[:limit]
    for row in rows:
        rich.add_row(*(_cell(v) for v in row))
    if limit is not None and len(table.rows) > limit:
        rich.add_row(
            f"... {len(table.rows) - limit} more (--full)", *([""] * (len(table.headers) - 1))
        )
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


def _html_table(table: Table) -> list[str]:
    parts = [f"<h2 id='{html.escape(table.name)}'>{html.escape(table.title)}</h2>"]
    if table.note:
        parts.append(f"<p class='note'>{html.escape(table.note)}</p>")
    body = ["<table><tr>", *(f"<th>{html.escape(h)}</th>" for h in table.headers), "</tr>"]
    for row in table.rows:
        body.append("<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>")
    body.append("</table>")
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
    ("Census", ("census-",)),
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


def write_html(
    tables: list[Table], out: Path, summary: str, figures: list[Path] | None = None
) -> Path:
    """One self-contained page: figures embedded as data URIs, tables inline, no script and
    nothing fetched, so it works opened from disk and archived as one file."""
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>portbench report</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1400px}"
        "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
        "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}th{background:#f0f0f0}"
        "p.note{color:#555}figure{display:inline-block;margin:0.5em;vertical-align:top}"
        "figure img{max-width:640px}figcaption{font-size:12px;color:#555}"
        "nav div{margin:0.3em 0}nav b{display:inline-block;min-width:12em;font-size:13px}"
        "nav a{margin-right:1em;font-size:13px}</style></head><body>",
        "<h1>portbench report</h1>",
        f"<p>{html.escape(summary)}</p>",
        _nav([t for t in tables if t.rows]),
        "<h2 id='figures'>Figures</h2>",
    ]
    for figure in figures or []:
        png = figure.with_suffix(".png")
        data = base64.b64encode(png.read_bytes()).decode("ascii")
        parts.append(
            f"<figure><img alt='{html.escape(png.stem)}' src='data:image/png;base64,{data}'>"
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


def print_tables(tables: list[Table], console: Console, full: bool) -> None:
    """The short summary (portability, the study beside us, failures, latency across
    accelerators and generations, first rows only), or every table in full."""
    for table in tables:
        wanted = full or table.name in SUMMARY_TABLES
        if wanted and (table.rows or table.name == "portability"):
            console.print(to_rich(table, None if full else 12))
