"""``portbench report [RUN_DIR...]`` and ``portbench publish``."""

from __future__ import annotations

import argparse
import hashlib
import json
import tarfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from ..errors import ResultsError
from ..paths import project_root
from .figures import write_figures
from .load import load_runs
from .render import print_tables, write_files, write_html
from .tables import curation, failures, latency_pairs, portability, provenance, published

__all__ = ["build_report", "register"]


def register(subparsers: Any) -> None:
    report = subparsers.add_parser(
        "report", help="merge runs into tables (terminal, Markdown, LaTeX, CSV, JSON, HTML)"
    )
    report.add_argument(
        "runs",
        nargs="*",
        type=Path,
        help="run or cell directories (default: everything under results/)",
    )
    report.add_argument(
        "--out", type=Path, default=None, help="output directory (default: report/)"
    )
    report.add_argument(
        "--full", action="store_true", help="every row in the terminal, not the first 12"
    )
    report.set_defaults(func=_report)
    publish = subparsers.add_parser(
        "publish", help="pack the report directory into one archive with hashed contents"
    )
    publish.add_argument(
        "--report", type=Path, default=None, help="the report directory (default: report/)"
    )
    publish.add_argument(
        "--out", type=Path, default=None, help="the archive (default: report-<date>.tar.gz)"
    )
    publish.set_defaults(func=_publish)


def build_report(runs: list[Path], out: Path, console: Console, full: bool = False) -> list[Path]:
    cells = load_runs(runs or None)
    if not cells:
        raise ResultsError(
            'no cells found; run `nox -s "bench(jax, cpu)"` first or pass run directories'
        )
    tables = [
        portability(cells),
        failures(cells),
        *latency_pairs(cells),
        published(cells),
        curation(cells),
        provenance(cells),
    ]
    written: list[Path] = []
    for table in tables:
        written += write_files(table, out / "tables")
    figures = write_figures(tables, out / "figures")
    written += figures
    failed = [c.cell_id for c in cells if c.status != "complete"]
    damaged = sum(c.unreadable_lines for c in cells)
    summary = (
        f"{len(cells)} cells from {len({c.path.parent for c in cells})} runs; "
        + (f"not complete: {', '.join(failed)}; " if failed else "all complete; ")
        + f"{damaged} unreadable result lines"
    )
    written.append(write_html(tables, out, summary, [f for f in figures if f.suffix == ".svg"]))
    print_tables(tables, console, full)
    console.print(summary)
    console.print(f"report: {out / 'index.html'} and {out / 'tables'}/")
    return written


def _report(args: argparse.Namespace) -> int:
    build_report(args.runs, args.out or project_root() / "report", Console(), args.full)
    return 0


def _publish(args: argparse.Namespace) -> int:
    folder = args.report or project_root() / "report"
    if not (folder / "index.html").exists():
        raise ResultsError(f"{folder} holds no report; run `portbench report` first")
    manifest = {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "CONTENTS.json"
    }
    (folder / "CONTENTS.json").write_text(
        json.dumps({"schema": 1, "files": manifest}, indent=2) + "\n"
    )
    archive = (
        args.out or folder.parent / f"report-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.tar.gz"
    )
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="report")
    Console().print(
        f"{archive}: {len(manifest)} files, contents and sha256 in report/CONTENTS.json"
    )
    return 0
