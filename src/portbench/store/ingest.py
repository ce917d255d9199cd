"""Ingesting cells into the store: one transaction per ingest, nothing stored twice.

Rows are checked against what the store holds before they are inserted: a cell, session
or record already there (same key, same content hash) is not inserted again, so ingesting
the same thing twice adds nothing, not even a line in ``ingests``. A record of a case the
store already holds for that cell, with other content, is stored too and counted as a
conflict (the first ingested counts, as the first line of a results file does); the record
of a resumed case that supersedes the host's record of a dead supervisor's case is not a
conflict. Rows go in through Arrow tables, in batches, inside the one transaction: an
ingest that fails stores nothing.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import duckdb
import pyarrow as pa

from .. import __version__
from .bundle import CellBundle
from .reading import CellJob, CellRead, read_bundle, read_cells
from .rows import (
    CELL_COLUMNS,
    PLANNED_COLUMNS,
    RECORD_COLUMNS,
    SESSION_COLUMNS,
    Batch,
    CellRows,
)
from .schema import SCHEMA_VERSION

__all__ = [
    "BATCH_RECORDS",
    "IngestSummary",
    "Source",
    "ingest_bundles",
    "ingest_jobs",
    "ingest_reads",
    "insert_table",
]

#: Records gathered before they are sent to DuckDB in one Arrow table.
BATCH_RECORDS = 50_000
#: Positions of the columns the checks read in a record row.
_NAMES = [name for name, _ in RECORD_COLUMNS]
_CASE_AT = _NAMES.index("case_id")
_DEAD_AT = _NAMES.index("for_dead_supervisor")


@dataclass(frozen=True)
class Source:
    """What an ingest read: a path as given, its kind, and the hash of an archive or export."""

    name: str
    kind: str
    """``directory``, ``archive`` or ``export``."""
    sha256: str | None = None


@dataclass
class IngestSummary:
    source: Source
    cells_read: int = 0
    cells_added: int = 0
    records_read: int = 0
    records_added: int = 0
    sessions_added: int = 0
    conflicts: int = 0
    skipped_lines: int = 0
    notes: list[str] = field(default_factory=list)
    ingest_id: str | None = None
    """The ingest's id in the store; None when it added nothing."""

    def sentence(self) -> str:
        added = (
            f"{self.records_added} new record(s) in {self.cells_added} new cell(s)"
            if self.records_added or self.cells_added
            else "nothing new"
        )
        text = (
            f"{self.source.name}: {self.records_read} record(s) of {self.cells_read} cell(s) "
            f"read, {added}"
        )
        if self.sessions_added:
            text += f", {self.sessions_added} new session line(s)"
        if self.conflicts:
            text += (
                f"; {self.conflicts} record(s) differ from the store's record of the same case "
                "in the same cell (both kept, the first ingested counts)"
            )
        if self.skipped_lines:
            text += f"; {self.skipped_lines} line(s) skipped as unreadable"
        return text


def insert_table(
    con: duckdb.DuckDBPyConnection, table_name: str, table: pa.Table, columns: Iterable[str]
) -> None:
    """Insert an Arrow table's rows into ``table_name`` by column name."""
    names = ", ".join(columns)
    con.register("staged_rows", table)
    try:
        con.execute(f"INSERT INTO {table_name} ({names}) SELECT {names} FROM staged_rows")
    finally:
        con.unregister("staged_rows")


def _in_list(keys: list[str]) -> str:
    return ", ".join("?" for _ in keys)


class _Known:
    """What the store holds of the cells an ingest touches (fetched once per batch)."""

    def __init__(self) -> None:
        self.cells: set[str] = set()
        self.sessions: set[tuple[str, str]] = set()
        self.records: set[tuple[str, str]] = set()
        self.cases: dict[tuple[str, str], bool] = {}
        """(cell, case) -> whether every record the store holds of it is a host record of
        a dead supervisor's case."""

    def load(self, con: duckdb.DuckDBPyConnection, keys: list[str]) -> None:
        fresh = [k for k in keys if k not in self.cells]
        if not fresh:
            return
        marks = _in_list(fresh)
        self.cells.update(
            row[0]
            for row in con.execute(
                f"SELECT cell_key FROM cells WHERE cell_key IN ({marks})", fresh
            ).fetchall()
        )
        self.sessions.update(
            con.execute(
                f"SELECT cell_key, session_sha256 FROM sessions WHERE cell_key IN ({marks})", fresh
            ).fetchall()
        )
        for cell, digest, case, dead in con.execute(
            "SELECT cell_key, record_sha256, case_id, for_dead_supervisor FROM records "
            f"WHERE cell_key IN ({marks})",
            fresh,
        ).fetchall():
            self.records.add((cell, digest))
            self.cases[(cell, case)] = self.cases.get((cell, case), True) and bool(dead)


class _Writer:
    """Batches rows of one ingest into the store, skipping what it already holds."""

    def __init__(self, con: duckdb.DuckDBPyConnection, summary: IngestSummary) -> None:
        self.con = con
        self.summary = summary
        self.known = _Known()
        self.pending: list[CellRows] = []
        self.pending_records = 0

    def add(self, rows: CellRows) -> None:
        self.pending.append(rows)
        self.pending_records += len(rows.records)
        if self.pending_records >= BATCH_RECORDS:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        self.known.load(self.con, sorted({r.key for r in self.pending}))
        cells, planned, sessions, records = (
            Batch(CELL_COLUMNS), Batch(PLANNED_COLUMNS), Batch(SESSION_COLUMNS),
            Batch(RECORD_COLUMNS),
        )  # fmt: skip
        for rows in self.pending:
            self._one(rows, cells, planned, sessions, records)
        tables = (
            ("cells", cells),
            ("planned", planned),
            ("sessions", sessions),
            ("records", records),
        )
        for name, batch in tables:
            if len(batch):
                insert_table(self.con, name, batch.table(), [c for c, _ in batch.columns])
        self.pending = []
        self.pending_records = 0

    def _one(
        self, rows: CellRows, cells: Batch, planned: Batch, sessions: Batch, records: Batch
    ) -> None:
        known, key = self.known, rows.key
        if key not in known.cells:
            known.cells.add(key)
            cells.rows.append(rows.cell)
            planned.rows.extend(rows.planned)
            self.summary.cells_added += 1
        for session in rows.sessions:
            if (key, session[1]) not in known.sessions:
                known.sessions.add((key, session[1]))
                sessions.rows.append(session)
                self.summary.sessions_added += 1
        for record in rows.records:
            digest = record[1]
            if (key, digest) in known.records:
                continue
            known.records.add((key, digest))
            case, dead = record[_CASE_AT], record[_DEAD_AT]
            only_dead = known.cases.get((key, case))
            if only_dead is not None and not (only_dead or dead):
                self.summary.conflicts += 1
            known.cases[(key, case)] = (only_dead is None or only_dead) and dead
            records.rows.append(record)
            self.summary.records_added += 1


def _reads(reads: Iterable[CellRead], summary: IngestSummary) -> Iterator[CellRows]:
    for read in reads:
        if read.rows is None:
            summary.notes.append(read.note or f"{read.where}: not read")
            continue
        summary.cells_read += 1
        summary.records_read += read.records
        summary.skipped_lines += read.skipped
        if read.skipped:
            summary.notes.append(
                f"{read.where}: {read.skipped} line(s) skipped ({'; '.join(read.problems[:3])})"
            )
        yield read.rows


def ingest_reads(
    con: duckdb.DuckDBPyConnection, reads: Iterable[CellRead], source: Source, ingest: str
) -> IngestSummary:
    """Store the cells ``reads`` yields (read for the ingest ``ingest``), in one
    transaction; the summary says what was new. Anything raised while reading rolls the
    whole ingest back."""
    summary = IngestSummary(source)
    con.execute("BEGIN TRANSACTION")
    try:
        writer = _Writer(con, summary)
        for rows in _reads(reads, summary):
            writer.add(rows)
        writer.flush()
        if summary.cells_added or summary.records_added or summary.sessions_added:
            _log_ingest(con, ingest, summary)
            summary.ingest_id = ingest
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return summary


def new_ingest_id() -> str:
    return uuid.uuid4().hex


def ingest_bundles(
    con: duckdb.DuckDBPyConnection, bundles: Iterable[CellBundle], source: Source
) -> IngestSummary:
    """Store cells already read (in this process), in one transaction."""
    ingest = new_ingest_id()
    reads = (read_bundle(b, ingest, f"{b.run_id}/{b.cell_dir}") for b in bundles)
    return ingest_reads(con, reads, source, ingest)


def ingest_jobs(
    con: duckdb.DuckDBPyConnection, jobs: list[CellJob], source: Source, workers: int | None = None
) -> IngestSummary:
    """Read the cell folders of ``jobs`` (in a pool of processes where there is much to
    read) and store them, in one transaction."""
    ingest = new_ingest_id()
    return ingest_reads(con, read_cells(jobs, ingest, workers), source, ingest)


def _log_ingest(con: duckdb.DuckDBPyConnection, ingest: str, summary: IngestSummary) -> None:
    con.execute(
        "INSERT INTO ingests (ingest_id, source, source_kind, source_sha256, machine, "
        "ingested_at, portbench_version, cells_added, records_added, sessions_added) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            ingest,
            summary.source.name,
            summary.source.kind,
            summary.source.sha256,
            socket.gethostname(),
            datetime.now(UTC).replace(tzinfo=None),
            f"{__version__} (store schema {SCHEMA_VERSION})",
            summary.cells_added,
            summary.records_added,
            summary.sessions_added,
        ],
    )
