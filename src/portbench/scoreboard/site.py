"""Writing the static site: jinja2 templates (autoescaped: every name and message is text,
never markup), relative links only, one stylesheet, no script, so the folder works opened
from disk (file://) as on any static host.

Pages: ``index.html`` (matrices), ``functions/index.html`` and a page per function,
``targets/<target>.html`` per accelerator, ``regressions.html``, ``cells.html`` (every
stored cell with its provenance; tampered cells listed apart), and ``trend/*.json`` for
machines (:mod:`.trend`).
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from .. import __version__
from .model import StoreData
from .pages import (
    SYMBOLS,
    FunctionPage,
    function_pages,
    matrices,
    series_order,
    slug,
    when,
)
from .regressions import SeriesReport
from .releases import Known
from .trend import trends

__all__ = ["SiteResult", "write_site"]

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class SiteResult:
    folder: Path
    pages: int
    functions: int
    trend_files: int


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["slug"] = slug
    env.filters["when"] = when
    return env


class _Writer:
    def __init__(self, out: Path, common: dict[str, object]) -> None:
        self.out = out
        self.env = _environment()
        self.common = common
        self.pages = 0

    def page(self, template: str, path: str, **context: Any) -> None:
        depth = path.count("/")
        html = self.env.get_template(template).render(
            root="../" * depth, page=path, **self.common, **context
        )
        target = self.out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        self.pages += 1


def _function_links(pages: list[FunctionPage]) -> dict[tuple[str, str], str]:
    return {(p.framework, p.function): p.file for p in pages}


def _targets(reports: list[SeriesReport]) -> dict[str, list[SeriesReport]]:
    out: dict[str, list[SeriesReport]] = defaultdict(list)
    for report in sorted(reports, key=lambda r: series_order(r.key)):
        out[report.key.target].append(report)
    return dict(sorted(out.items()))


def write_site(
    data: StoreData,
    reports: list[SeriesReport],
    known: dict[str, Known],
    out: Path,
    store_name: str,
) -> SiteResult:
    """Write the whole site into ``out`` (its old pages are replaced)."""
    for old in ("functions", "targets", "trend"):
        shutil.rmtree(out / old, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    functions = function_pages(reports)
    links = _function_links(functions)
    targets = _targets(reports)
    common = {
        "store": store_name,
        "version": __version__,
        "symbols": SYMBOLS,
        "targets": {t: f"targets/{slug(t)}.html" for t in targets},
        "functions": links,
        "cells_stored": len(data.runs),
        "tampered_count": len(data.tampered),
    }
    writer = _Writer(out, common)
    writer.page("index.html", "index.html", matrices=matrices(reports, known), known=known)
    by_framework: dict[str, list[FunctionPage]] = defaultdict(list)
    for page in functions:
        by_framework[page.framework].append(page)
        writer.page("function.html", page.file, fn=page)
    writer.page(
        "functions.html", "functions/index.html", by_framework=dict(sorted(by_framework.items()))
    )
    for target, found in targets.items():
        writer.page("target.html", f"targets/{slug(target)}.html", target=target, reports=found)
    ordered = sorted(reports, key=lambda r: series_order(r.key))
    writer.page("regressions.html", "regressions.html", reports=ordered)
    runs = sorted(data.runs, key=lambda r: (r.framework, r.target, r.kind, r.order))
    writer.page("cells.html", "cells.html", runs=runs, tampered=data.tampered)
    shutil.copyfile(HERE / "static" / "style.css", out / "style.css")
    files = trends(reports, out / "trend")
    (out / "trend" / "index.json").write_text(
        json.dumps({"schema": 1, "kind": "portbench-trend-index", "files": files}, indent=1) + "\n",
        encoding="utf-8",
    )
    return SiteResult(out, writer.pages, len(functions), len(files))
