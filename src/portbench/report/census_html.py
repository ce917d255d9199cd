"""``census.html``: a compact heat map per census cell (operators x dtypes), self-contained.

One small square per operator x dtype, colored by support; a ring marks a dtype the
database does not declare for the device, so the findings stand out (a green square with
a ring: working but undeclared; a red one without: declared but failing). Each square's
title says the operator, dtype, samples and first error.
"""

from __future__ import annotations

import html
from pathlib import Path

from .census import CensusCase, census_cases, census_cells
from .load import Cell

__all__ = ["write_census_html"]

COLORS = {
    "yes": "#2e9e4f",
    "partly": "#e0b030",
    "no": "#d0433a",
    "no-sample": "#e4e4e4",
    "error": "#7a4fc0",
}


def _square(case: CensusCase | None) -> str:
    if case is None:
        return "<td></td>"
    ring = " class='u'" if case.declared is False else ""
    title = (
        f"{case.operator} {case.dtype}: {case.support} ({case.ok}/{case.samples} samples)"
        + ("; not declared" if case.declared is False else "")
        + (f"; {case.message}" if case.message else "")
    )
    return f"<td{ring} style='background:{COLORS[case.support]}' title='{html.escape(title)}'></td>"


def _cell_map(cell: Cell) -> list[str]:
    cases = census_cases(cell)
    dtypes = list(dict.fromkeys(c.dtype for c in cases))
    by_op: dict[str, dict[str, CensusCase]] = {}
    for case in cases:
        by_op.setdefault(case.operator, {})[case.dtype] = case
    census = cell.census
    database, version = (census.database, census.version) if census is not None else ("", "")
    parts = [
        f"<h2 id='{html.escape(cell.path.name)}'>{html.escape(cell.cell_id)}</h2>",
        f"<p>{html.escape(database)} {html.escape(version)};"
        f" {len(by_op)} operators, {len(cases)} operator x dtype pairs; {cell.status}</p>",
        "<table><tr><th></th>",
        *(f"<th class='d'><div>{html.escape(d)}</div></th>" for d in dtypes),
        "</tr>",
    ]
    for operator in sorted(by_op):
        row = by_op[operator]
        parts.append(f"<tr><th class='o'>{html.escape(operator)}</th>")
        parts.extend(_square(row.get(d)) for d in dtypes)
        parts.append("</tr>")
    parts.append("</table>")
    return parts


def write_census_html(cells: list[Cell], out: Path) -> Path | None:
    """Write ``out/census.html`` for the census cells among ``cells``; None if there are none."""
    chosen = census_cells(cells)
    if not chosen:
        return None
    legend = "".join(
        f"<span><i style='background:{color}'></i>{html.escape(name)}</span>"
        for name, color in COLORS.items()
    )
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>portbench census</title>",
        "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
        "td{width:9px;height:9px;padding:0;border:1px solid #fff}"
        "td.u{outline:2px solid #222;outline-offset:-3px}"
        "th.o{font:10px monospace;text-align:right;padding-right:4px;white-space:nowrap}"
        "th.d{height:60px;vertical-align:bottom;font:10px monospace}"
        "th.d div{writing-mode:vertical-rl;transform:rotate(180deg)}"
        "span{margin-right:1em;font-size:12px}i{display:inline-block;width:10px;height:10px;"
        "margin-right:3px}</style></head><body><h1>portbench census</h1>",
        f"<p>{legend}<span>a ring: dtype not declared by the database for this device</span></p>",
        "<p>"
        + " ".join(
            f"<a href='#{html.escape(c.path.name)}'>{html.escape(c.cell_id)}</a>" for c in chosen
        )
        + "</p>",
    ]
    for cell in chosen:
        parts.extend(_cell_map(cell))
    parts.append("</body></html>")
    out.mkdir(parents=True, exist_ok=True)
    path = out / "census.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
