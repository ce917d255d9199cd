"""``portbench scoreboard [--store FILE] [--out DIR] [--fail-on regression]``."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from ..paths import project_root
from ..store.db import default_store, open_store
from ..writable import require_writable
from .alerts import newest_alerts
from .model import load_store
from .regressions import SeriesReport, analyse
from .releases import known_releases
from .site import write_site

__all__ = ["register"]

#: Exit status of ``--fail-on regression`` when the newest release of a series broke a case.
REGRESSION_EXIT = 1


def register(subparsers: Any) -> None:
    board = subparsers.add_parser(
        "scoreboard",
        help="write the static scoreboard site from the store (matrix, functions, targets, "
        "regressions, trend.json)",
    )
    board.add_argument(
        "--store", type=Path, default=None, help="the store (default: results/store.duckdb)"
    )
    board.add_argument("--out", type=Path, default=None, help="the site's folder (default: site/)")
    board.add_argument(
        "--fail-on",
        choices=["regression"],
        default=None,
        help="exit 1 when the newest release of a framework breaks a case that passed in the "
        "release before on the same target (flaky cases are listed apart, never fail)",
    )
    board.set_defaults(func=_scoreboard)


def build_reports(store: Path, err: Console | None = None) -> tuple[Any, list[SeriesReport]]:
    """The store's data and every series' analysis."""
    waiting = (lambda m: err.print(escape(m))) if err is not None else None
    with open_store(store, write=False, waiting=waiting) as con:
        data = load_store(con)
    reports = [analyse(series) for series in data.series.values()]
    return data, reports


def _scoreboard(args: argparse.Namespace) -> int:
    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    store = args.store or default_store()
    out = args.out or project_root() / "site"
    require_writable(out, "pass --out a folder you can write")
    started = time.perf_counter()
    data, reports = build_reports(store, err)
    known = known_releases(data)
    result = write_site(data, reports, known, out, store.name)
    console.print(
        f"{escape(str(out / 'index.html'))}: {result.pages} page(s), {result.functions} "
        f"function page(s), {result.trend_files} trend file(s), from {len(data.runs)} cell(s) "
        f"({len(data.tampered)} tampered, kept out) in {time.perf_counter() - started:.1f} s"
    )
    if args.fail_on != "regression":
        return 0
    alerts = newest_alerts(reports)
    for line in alerts.flaky:
        console.print(f"[magenta]flaky:[/] {escape(line)}")
    for alert in alerts.regressions:
        console.print(f"[bold red]regression:[/] {escape(alert.sentence())}")
    if alerts.regressions:
        err.print(
            f"{len(alerts.regressions)} regression(s) in the newest releases; see "
            f"{escape(str(out / 'regressions.html'))}"
        )
        return REGRESSION_EXIT
    console.print("no regression in the newest release of any series")
    return 0
