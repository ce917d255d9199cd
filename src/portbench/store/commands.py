"""``portbench ingest`` (run directories, cell archives, exports into the store; ``--export``)
and ``portbench pack`` (cells into an archive another machine can ingest)."""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from ..errors import UsageError
from ..paths import project_root, results_dir
from ..report.load import find_cells
from ..tarpack import archive_file
from ..writable import require_writable
from .archive import check_archive, pack_cells, refused_cell
from .bundle import CellRefused, NotACell
from .db import default_store, open_store
from .export import EXPORT, export_store, ingest_export
from .ingest import IngestSummary, Source, ingest_jobs
from .reading import CellJob

__all__ = ["register"]


def register(subparsers: Any) -> None:
    ingest = subparsers.add_parser(
        "ingest",
        help="add run directories, cell archives (portbench pack) or another store's export "
        "to the store",
    )
    ingest.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="RUN_DIR|ARCHIVE|EXPORT_DIR",
        help="run or cell directories (default: everything under results/), archives that "
        "portbench pack wrote, folders that portbench ingest --export wrote",
    )
    ingest.add_argument(
        "--store", type=Path, default=None, help="the store (default: results/store.duckdb)"
    )
    ingest.add_argument(
        "--study",
        nargs="?",
        const="default",
        default=None,
        metavar="PATH",
        help="also the study's cells (portbench import-study; default source: "
        "paper/study-timings-b220f30.tar.xz)",
    )
    ingest.add_argument(
        "--export",
        type=Path,
        default=None,
        metavar="DIR",
        help="after ingesting, write the store's tables as Parquet into DIR (new or empty)",
    )
    ingest.add_argument(
        "--verify-records",
        action="store_true",
        help="an export's records are also read back one by one through the typed reader",
    )
    ingest.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="processes that read cells (default: the CPUs, at most 8; 1: this process only)",
    )
    ingest.set_defaults(func=_ingest)
    pack = subparsers.add_parser(
        "pack",
        help="pack cells (plan, env, results, sessions) into one archive to ingest elsewhere",
    )
    pack.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN_DIR", help="run or cell directories"
    )
    pack.add_argument(
        "--out", type=Path, default=None, help="the archive (default: dist/cells-<date>.tar.gz)"
    )
    pack.set_defaults(func=_pack)


def _ingest_cells(con: Any, cells: list[Path], name: str, workers: int | None) -> IngestSummary:
    jobs = [CellJob(path) for path in cells]
    return ingest_jobs(con, jobs, Source(name, "directory"), workers)


def _ingest_archive(con: Any, path: Path, workers: int | None) -> IngestSummary:
    with tempfile.TemporaryDirectory(prefix="portbench-ingest-") as staging:
        checked = check_archive(path, Path(staging) / "cells")
        source = Source(str(path), "archive", checked.sha256)
        try:
            return ingest_jobs(con, checked.jobs(), source, workers)
        except (CellRefused, NotACell) as exc:
            raise refused_cell(path, exc) from None


def _shown(path: Path) -> str:
    """A folder as the store records its source: relative to the project where it is in it
    (the default, results/), so no path of this machine goes into a shared store."""
    try:
        return str(path.resolve().relative_to(project_root()))
    except ValueError:
        return str(path)


def _study_paths(source: str, scratch: Path) -> list[Path]:
    """The study's cells (portbench import-study): an archive's imported once and cached by
    its content, as the report does; a checkout's imported afresh into ``scratch``."""
    from ..report.study import default_archive, import_study, study_cells_dir

    archive = default_archive() if source == "default" else Path(source)
    if not archive.exists():
        raise UsageError(
            f"{archive} does not exist; pass --study the study's repository or archive"
        )
    cache = study_cells_dir(archive) if archive.is_file() else scratch / "study"
    if not (cache / "NOT-IMPORTED.txt").exists():
        import_study(archive, cache)
    return sorted(p for p in cache.iterdir() if p.is_dir())


def _ingest(args: argparse.Namespace) -> int:
    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    store = args.store or default_store()
    paths: list[Path] = list(args.paths)
    if not paths and args.study is None and args.export is None:
        paths = [results_dir()]
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"{path} does not exist; name run directories, archives or exports")
    if args.export is not None:
        require_writable(args.export, "pass --export a folder you can write")
    require_writable(store.parent, "pass --store a file in a folder you can write")
    started = time.perf_counter()
    records = 0
    with open_store(store, write=True, waiting=lambda m: err.print(escape(m))) as con:
        for path in paths:
            if path.is_dir() and (path / EXPORT).exists():
                summary = ingest_export(con, path, args.verify_records)
                records += summary.rows.get("records", 0)
                console.print(escape(summary.sentence()))
                continue
            if path.is_file():
                result = _ingest_archive(con, path, args.jobs)
            else:
                result = _ingest_cells(con, find_cells([path]), _shown(path), args.jobs)
            records += result.records_read
            _print(console, result)
        if args.study is not None:
            with tempfile.TemporaryDirectory(prefix="portbench-study-") as scratch:
                cells = _study_paths(args.study, Path(scratch))
                study = _ingest_cells(con, cells, "the study's cells", args.jobs)
            records += study.records_read
            _print(console, study)
        if args.export is not None:
            rows = export_store(con, args.export)
            console.print(
                f"exported {rows['records']} record(s) of {rows['cells']} cell(s) to "
                f"{escape(str(args.export))} ({EXPORT} lists the files and their hashes)"
            )
    elapsed = time.perf_counter() - started
    console.print(f"store: {escape(str(store))} ({records} record(s) read in {elapsed:.1f} s)")
    return 0


def _print(console: Console, summary: IngestSummary) -> None:
    console.print(escape(summary.sentence()))
    for note in summary.notes[:10]:
        console.print(f"  [yellow]note:[/] {escape(note)}")
    if len(summary.notes) > 10:
        console.print(f"  … and {len(summary.notes) - 10} more note(s)")


def _pack(args: argparse.Namespace) -> int:
    cells = find_cells(list(args.runs))
    if not cells:
        raise UsageError(
            "no cells found in the folders named; pass run directories (results/<run-id>)"
        )
    out = args.out or Path("dist") / f"cells-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.tar.gz"
    with archive_file(out, "pass --out a path in a folder you can write") as handle:
        count, records, left_out = pack_cells(cells, handle)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"{escape(str(out))}: {count} cell(s), {records} record(s); sha256 {digest}")
    for note in left_out:
        console.print(f"  [yellow]left out:[/] {escape(note)}")
    return 0
