"""A store's tables as Parquet, and ingesting another store's export.

``portbench ingest --export DIR`` writes ``ingests``, ``cells``, ``planned``, ``sessions`` and
``records`` as Parquet files (zstd) with ``EXPORT.json``: the store schema they follow and the sha256,
size and row count of each. Tampered cells go with them, stored as such.

Ingesting an export is DuckDB's own bulk path (no Python per record). It is checked first,
whole: exactly the files of its schema, no link; every file's hash as listed; the columns and types
of each table those of its schema; every record's content hash recomputed from its JSON;
every outcome, stage, category, evidence kind, suite and verdict one of the contract's
values; every record of a cell the export or the store holds. An export of an older store
schema is brought up to date by the same migrations a store takes, in memory, before it
is read; a newer one is refused. ``--verify-records`` also reads every record's JSON back
through the typed reader (the check an archive gets; a record at a time in Python).
Anything that fails refuses the export whole, in one sentence; nothing is stored.
"""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from portbench_runner.contract import (
    DOCUMENT,
    Category,
    ContractError,
    EvidenceKind,
    IntegrityVerdict,
    LineRefused,
    Outcome,
    SessionStatus,
    Stage,
    StrEnum,
    dumps,
    read_json,
)

from .. import __version__
from ..results import CaseRecord, StudyRecord
from ..results.safeio import open_nofollow, read_bounded
from .db import StoreError
from .facts import SUITE_CASES, SUITE_CENSUS, SUITE_STUDY
from .rows import sha256
from .schema import SCHEMA_VERSION, create, migrations, tables_of

__all__ = ["EXPORT", "TABLES", "ExportRefused", "ExportSummary", "export_store", "ingest_export"]

EXPORT = "EXPORT.json"
TABLES = tables_of(SCHEMA_VERSION)
_CHUNK = 1 << 20


class ExportRefused(StoreError):
    """An export that did not pass every check: refused whole."""


@dataclass(frozen=True)
class ExportSummary:
    folder: Path
    rows: dict[str, int]
    added: dict[str, int]

    def sentence(self) -> str:
        added = self.added.get("records", 0)
        cells = self.added.get("cells", 0)
        return (
            f"{self.folder}: {self.rows.get('records', 0)} record(s) of "
            f"{self.rows.get('cells', 0)} cell(s) read, "
            + (f"{added} new record(s) in {cells} new cell(s)" if added or cells else "nothing new")
        )


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    fd = open_nofollow(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def export_store(con: duckdb.DuckDBPyConnection, folder: Path) -> dict[str, int]:
    """Write the store's tables into ``folder`` (new or empty); rows per table."""
    if folder.exists() and any(folder.iterdir()):
        raise StoreError(f"{folder} is not empty; name a new folder for the export")
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, dict[str, object]] = {}
    rows: dict[str, int] = {}
    for table in TABLES:
        path = folder / f"{table}.parquet"
        order = {
            "records": "cell_key, record_sha256",
            "sessions": "cell_key, session_sha256",
            "planned": "cell_key, function, study_test_file",
        }
        con.execute(
            f"COPY (SELECT * FROM {table} ORDER BY {order.get(table, '1')}) TO {_literal(path)} "
            "(FORMAT parquet, COMPRESSION zstd)"
        )
        count = con.execute(f"SELECT count(*) FROM {table}").fetchone()
        rows[table] = int(count[0]) if count else 0
        files[path.name] = {
            "sha256": _file_sha256(path),
            "size": path.stat().st_size,
            "rows": rows[table],
        }
    document = {"schema": 1, "kind": "store-export", "store_schema": SCHEMA_VERSION, "files": files}
    (folder / EXPORT).write_text(dumps(document) + "\n", encoding="utf-8")
    return rows


def _refuse(folder: Path, why: str) -> ExportRefused:
    return ExportRefused(
        f"{folder} was refused whole and nothing of it stored: {why}; ingest only what "
        "portbench ingest --export wrote, as it wrote it"
    )


def _listing(folder: Path) -> tuple[int, dict[str, tuple[str, int]]]:
    """The export's store schema and {file: (sha256, rows)}, every file checked."""
    try:
        document = read_json(read_bounded(folder / EXPORT, DOCUMENT.max_bytes), DOCUMENT)
    except (OSError, LineRefused, StoreError) as exc:
        raise ValueError(f"its {EXPORT} does not read ({exc})") from None
    files = document.get("files") if isinstance(document, dict) else None
    schema = document.get("store_schema") if isinstance(document, dict) else None
    if (
        not isinstance(document, dict)
        or document.get("kind") != "store-export"
        or not isinstance(files, dict)
        or not isinstance(schema, int)
    ):
        raise ValueError(f"its {EXPORT} is not a store export's list")
    if schema > SCHEMA_VERSION:
        raise ValueError(
            f"it follows store schema {schema}, newer than this portbench's {SCHEMA_VERSION} "
            "(upgrade portbench)"
        )
    expected = {f"{table}.parquet" for table in tables_of(schema)}
    present = {entry.name for entry in os.scandir(folder)} - {EXPORT}
    if present != expected or set(files) != expected:
        odd = sorted((present ^ expected) | (set(files) ^ expected))
        raise ValueError(
            f"it holds or lists {odd[0][:80]!r}, not one of {', '.join(sorted(expected))}"
        )
    listed: dict[str, tuple[str, int]] = {}
    for name in sorted(expected):
        entry = files[name]
        if not stat.S_ISREG(os.lstat(folder / name).st_mode):
            raise ValueError(f"{name} is not a regular file (a link?)")
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        rows = entry.get("rows") if isinstance(entry, dict) else None
        if not isinstance(digest, str) or not isinstance(rows, int):
            raise ValueError(f"its {EXPORT} entry for {name} is not a hash and a row count")
        if _file_sha256(folder / name) != digest:
            raise ValueError(f"{name} does not hash to what {EXPORT} lists (a changed file)")
        listed[name] = (digest, rows)
    return schema, listed


def _literal(path: Path) -> str:
    """A path as an SQL string literal."""
    return "'" + str(path).replace("'", "''") + "'"


def _columns(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[str, str]]:
    return [(str(row[0]), str(row[1])) for row in con.execute(f"DESCRIBE {sql}").fetchall()]


def _in(values: list[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def _values(enum: type[StrEnum]) -> list[str]:
    return [str(member.value) for member in enum]


# (table, condition a row must meet, what a row that does not is)
_DOMAIN_CHECKS = (
    ("records", f"outcome IN ({_in(_values(Outcome))})", "an outcome the contract does not know"),
    ("records", f"stage IS NULL OR stage IN ({_in(_values(Stage))})", "an unknown stage"),
    ("records", f"category IS NULL OR category IN ({_in(_values(Category))})", "an unknown category"),
    ("records", f"evidence_kind IN ({_in(_values(EvidenceKind))})", "an unknown evidence kind"),
    ("records", "record_kind IN ('case', 'study')", "an unknown record kind"),
    ("records", "sha256(record_json) = record_sha256", "a record whose content does not hash to its key (a changed record)"),
    ("cells", f"evidence_kind IN ({_in(_values(EvidenceKind))})", "an unknown evidence kind"),
    ("cells", f"suite IN ({_in([SUITE_CASES, SUITE_CENSUS, SUITE_STUDY])})", "an unknown suite"),
    ("cells", "sha256(plan_json) = plan_sha256", "a plan whose content does not hash to its key"),
    ("sessions", f"integrity IN ({_in(_values(IntegrityVerdict))})", "an unknown integrity verdict"),
    ("sessions", f"status IN ({_in(_values(SessionStatus))})", "an unknown session status"),
    ("sessions", "sha256(line_json) = session_sha256", "a session line that does not hash to its key"),
)  # fmt: skip


def _check(con: duckdb.DuckDBPyConnection, source: str, store: str) -> None:
    """The checks a staged export must pass (``source``: the staged tables' schema)."""
    for table in TABLES:
        if _columns(con, f"{source}.{table}") != _columns(con, f"{store}.{table}"):
            raise ValueError(
                f"{table}.parquet has not the columns of store schema {SCHEMA_VERSION}"
            )
    for table, condition, what in _DOMAIN_CHECKS:
        row = con.execute(
            f"SELECT count(*) FROM {source}.{table} WHERE NOT coalesce({condition}, false)"
        ).fetchone()
        if row and row[0]:
            raise ValueError(f"{table}.parquet holds {row[0]} row(s) with {what}")
    orphan = con.execute(
        f"SELECT count(*) FROM {source}.records r WHERE r.cell_key NOT IN "
        f"(SELECT cell_key FROM {source}.cells UNION SELECT cell_key FROM {store}.cells)"
    ).fetchone()
    if orphan and orphan[0]:
        raise ValueError(f"records.parquet holds {orphan[0]} record(s) of no cell")
    unlogged = con.execute(
        f"SELECT count(*) FROM (SELECT ingest_id FROM {source}.records UNION "
        f"SELECT ingest_id FROM {source}.cells) x WHERE ingest_id NOT IN "
        f"(SELECT ingest_id FROM {source}.ingests UNION SELECT ingest_id FROM {store}.ingests)"
    ).fetchone()
    if unlogged and unlogged[0]:
        raise ValueError("rows name an ingest that ingests.parquet does not list")


def _verify_records(con: duckdb.DuckDBPyConnection, source: str) -> None:
    """Every record's JSON read back through the typed reader, and written back the same."""
    cursor = con.execute(f"SELECT record_kind, record_json, record_sha256 FROM {source}.records")
    while batch := cursor.fetchmany(10_000):
        for kind, text, digest in batch:
            try:
                obj = read_json(text)
                record = (
                    StudyRecord.from_json(obj) if kind == "study" else CaseRecord.from_json(obj)
                )
            except (LineRefused, ContractError) as exc:
                raise ValueError(f"a record the typed reader refuses ({str(exc)[:160]})") from None
            if sha256(dumps(record.to_json())) != digest:
                raise ValueError("a record that the typed reader does not write back the same")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _stage(con: duckdb.DuckDBPyConnection, folder: Path, schema: int) -> None:
    """The export's tables in the in-memory database ``incoming``, migrated to this store's
    schema."""
    store = _store_name(con)
    con.execute("ATTACH ':memory:' AS incoming")
    con.execute("USE incoming")
    try:
        create(con)
        for step in migrations():
            if step.version <= schema:
                step.apply(con)
        for table in tables_of(schema):
            parquet = f"read_parquet({_literal(folder / f'{table}.parquet')})"
            if _columns(con, f"SELECT * FROM {parquet}") != _columns(con, table):
                raise ValueError(f"{table}.parquet has not the columns of store schema {schema}")
            con.execute(f"INSERT INTO {table} SELECT * FROM {parquet}")
        for step in migrations():
            if step.version > schema:
                step.apply(con)
    finally:
        con.execute(f"USE {_quoted(store)}")


def ingest_export(
    con: duckdb.DuckDBPyConnection, folder: Path, verify_records: bool = False
) -> ExportSummary:
    """Check the export in ``folder`` whole, then add what the store lacks (one transaction)."""
    if not folder.is_dir() or folder.is_symlink():
        raise _refuse(folder, "it is not a folder")
    try:
        schema, listed = _listing(folder)
        _stage(con, folder, schema)
        _check(con, "incoming.main", "main")
        if verify_records:
            _verify_records(con, "incoming.main")
    except (ValueError, duckdb.Error, OSError) as exc:
        _detach(con)
        raise _refuse(folder, str(exc).splitlines()[0][:300]) from None
    rows = {name.removesuffix(".parquet"): count for name, (_, count) in listed.items()}
    try:
        added = _insert(con, folder, _file_sha256(folder / EXPORT))
    finally:
        _detach(con)
    return ExportSummary(folder, rows, added)


def _store_name(con: duckdb.DuckDBPyConnection) -> str:
    row = con.execute("SELECT current_database()").fetchone()
    return str(row[0]) if row else "main"


def _detach(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("DETACH incoming")
    except duckdb.Error:
        pass


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchone()
    return int(row[0]) if row else 0


def _insert(con: duckdb.DuckDBPyConnection, folder: Path, digest: str) -> dict[str, int]:
    ingest = uuid.uuid4().hex
    added: dict[str, int] = {}
    con.execute("BEGIN TRANSACTION")
    try:
        added["ingests"] = _carry_ingests(con, ingest)
        added["planned"] = _count(
            con,
            "INSERT INTO planned SELECT * FROM incoming.planned p "
            "WHERE p.cell_key NOT IN (SELECT cell_key FROM cells)",
        )
        added["cells"] = _count(
            con,
            "INSERT INTO cells SELECT * FROM incoming.cells c "
            "WHERE c.cell_key NOT IN (SELECT cell_key FROM cells)",
        )
        added["sessions"] = _count(
            con,
            "INSERT INTO sessions SELECT * FROM incoming.sessions s WHERE NOT EXISTS "
            "(SELECT 1 FROM sessions t WHERE t.cell_key = s.cell_key "
            "AND t.session_sha256 = s.session_sha256)",
        )
        added["records"] = _count(
            con,
            "INSERT INTO records SELECT * FROM incoming.records r WHERE NOT EXISTS "
            "(SELECT 1 FROM records t WHERE t.cell_key = r.cell_key "
            "AND t.record_sha256 = r.record_sha256)",
        )
        if added["cells"] or added["sessions"] or added["records"]:
            con.execute(
                "INSERT INTO ingests (ingest_id, source, source_kind, source_sha256, "
                "machine, ingested_at, portbench_version, cells_added, records_added, "
                "sessions_added) VALUES (?, ?, 'export', ?, ?, ?, ?, ?, ?, ?)",
                [
                    ingest, str(folder), digest, socket.gethostname(),
                    datetime.now(UTC).replace(tzinfo=None),
                    f"{__version__} (store schema {SCHEMA_VERSION})",
                    added["cells"], added["records"], added["sessions"],
                ],
            )  # fmt: skip
            con.execute("COMMIT")
        else:
            con.execute("ROLLBACK")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return added


def _carry_ingests(con: duckdb.DuckDBPyConnection, ingest: str) -> int:
    """The exporting store's ingests, kept as they were (their records name them), each
    marked as carried by this ingest of the export."""
    return _count(
        con,
        "INSERT INTO ingests SELECT * REPLACE (coalesce(carried_by, '"
        + ingest
        + "') AS carried_by) FROM incoming.ingests i "
        "WHERE i.ingest_id NOT IN (SELECT ingest_id FROM ingests)",
    )
