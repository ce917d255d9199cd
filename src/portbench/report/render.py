"""Writing tables: Markdown, LaTeX (booktabs), CSV and JSON files; one static index.html
that works opened from disk (no server, no network). The terminal's are in :mod:`.terminal`."""

from __future__ import annotations

import base64
import csv
import html
import json
from pathlib import Path
from typing import Any

from tabulate import tabulate

from .markdown import md_prose, md_table
from .tables import Table
from .wrap import pieces

__all__ = ["write_files", "write_html"]


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def write_files(table: Table, out: Path) -> list[Path]:
    """<name>.md, .tex, .csv and .json for one table."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [[_cell(v) for v in row] for row in table.rows]
    paths = []
    md = out / f"{table.name}.md"
    # Cells hold case messages: written inert (no HTML, no '|' ending a cell early).
    md.write_text(
        f"## {md_prose(table.title)}\n\n{md_table(rows, table.headers)}\n\n"
        f"{md_prose(table.note)}\n",
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
    ("Portability", ("portability", "strata", "failures", "fallback")),
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
