"""The scan as one HTML page (jinja2, autoescaped: names and messages come from the scanned
project and from evidence, so neither is trusted as markup)."""

from __future__ import annotations

import jinja2

from .. import __version__
from .report import ScanReport
from .terminal import _sentences
from .verdict import STATUSES

__all__ = ["render_html"]


def render_html(report: ScanReport) -> str:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("portbench.scan", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    template = environment.get_template("scan.html.j2")
    return template.render(
        report=report,
        s=report.summary,
        counts=report.status_counts(),
        statuses=STATUSES,
        sentences=_sentences(report),
        version=__version__,
    )
