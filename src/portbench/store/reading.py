"""Reading cells into rows, in several processes when there is much to read.

Almost all of an ingest's time is spent in Python, a record at a time: the typed reader
(every line decoded and checked field by field) and the canonical encoding that hashes it.
Cells are independent, so they are read in a pool of worker processes (``forkserver``: a
worker never inherits the parent's DuckDB threads) and only their rows come back; the one
process that writes the store stays the only writer. A handful of small cells is read in
this process: a pool costs more to start than it saves.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from .bundle import CellBundle, NotACell, read_cell
from .rows import CellRows, cell_rows

__all__ = ["CellJob", "CellRead", "default_workers", "read_bundle", "read_cells"]

#: Below this many bytes of results in all, cells are read in this process.
POOL_MIN_BYTES = 8 << 20
MAX_WORKERS = 8


@dataclass(frozen=True)
class CellJob:
    """A cell folder to read, and the names to give it (an archive's, never used as paths)."""

    path: Path
    strict: bool = False
    run: str | None = None
    cell: str | None = None

    @property
    def where(self) -> str:
        return f"{self.run}/{self.cell}" if self.run and self.cell else str(self.path)


@dataclass(frozen=True)
class CellRead:
    """What reading one cell gave: its rows, or why it was not read (a note)."""

    where: str
    rows: CellRows | None = None
    note: str | None = None
    records: int = 0
    skipped: int = 0
    problems: tuple[str, ...] = ()


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


def read_bundle(bundle: CellBundle, ingest: str, where: str) -> CellRead:
    return CellRead(
        where, cell_rows(bundle, ingest), None, len(bundle.records), bundle.skipped,
        bundle.problems,
    )  # fmt: skip


def _read(job: CellJob, ingest: str) -> CellRead:
    try:
        bundle = read_cell(job.path, job.strict, job.where if job.run else None)
    except NotACell as exc:
        if job.strict:
            raise
        return CellRead(job.where, note=str(exc))
    if job.run and job.cell:
        bundle = replace(bundle, run_id=job.run, cell_dir=job.cell)
    return read_bundle(bundle, ingest, job.where)


def _size(job: CellJob) -> int:
    try:
        return (job.path / "results.jsonl").stat().st_size
    except OSError:
        return 0


def read_cells(jobs: list[CellJob], ingest: str, workers: int | None = None) -> Iterator[CellRead]:
    """Each job's reading, in the jobs' order; in a pool of ``workers`` processes when
    there is enough to read. A strict job's refusal is raised here."""
    count = default_workers() if workers is None else max(1, workers)
    if count == 1 or len(jobs) < 2 or sum(map(_size, jobs)) < POOL_MIN_BYTES:
        for job in jobs:
            yield _read(job, ingest)
        return
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(min(count, len(jobs)), mp_context=context) as pool:
        yield from pool.map(_read, jobs, [ingest] * len(jobs))
