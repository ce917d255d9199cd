"""The store's tables, its schema version and the migrations between versions.

Store schema history (``meta.schema``; docs/store.md describes every column):
  1 - ``ingests`` (what was ingested, from where, on which machine, when), ``cells`` (one row
      per cell run: its keys, its plan and env), ``sessions`` (each session line of a cell)
      and ``records`` (each case record, its identity the cell and a hash of its content).
  2 - ``planned`` (each function a cell's plan lists, with its number of cases): the
      denominator of every portability count, a function with no record included; filled
      for the cells a schema 1 store holds from their stored plans.
  3 - the stored JSON (records, session lines, plans, envs) and the content hashes kept with
      zstd (DuckDB's column compression) instead of DuckDB's choice of dictionary and FSST:
      about a third less disk for the same rows (benchmarks/store_bench.py); the tables
      are rebuilt, their rows unchanged.
A store of a newer schema is refused with one sentence; an older one is migrated, step by
step, in one transaction, when it is opened for writing.

Every reader reads the views, never the tables: ``cell_state`` (a cell's last session and its
integrity verdict) and ``case_results`` (one record per case and cell, host records of a dead
supervisor superseded, tampered cells left out).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb

__all__ = ["SCHEMA_VERSION", "Migration", "create", "migrations", "tables_of", "views"]

SCHEMA_VERSION = 3
_TABLES = {1: ("ingests", "cells", "sessions", "records"), 2: ("planned",), 3: ()}

_TABLES_V1 = (
    """
    CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)
    """,
    """
    CREATE TABLE ingests (
        ingest_id VARCHAR NOT NULL,
        source VARCHAR NOT NULL,
        source_kind VARCHAR NOT NULL,
        source_sha256 VARCHAR,
        machine VARCHAR NOT NULL,
        ingested_at TIMESTAMP NOT NULL,
        portbench_version VARCHAR NOT NULL,
        cells_added INTEGER NOT NULL,
        records_added BIGINT NOT NULL,
        sessions_added INTEGER NOT NULL,
        carried_by VARCHAR
    )
    """,
    """
    CREATE TABLE cells (
        cell_key VARCHAR NOT NULL,
        cell_id VARCHAR NOT NULL,
        framework VARCHAR NOT NULL,
        accelerator VARCHAR NOT NULL,
        profile VARCHAR NOT NULL,
        backend VARCHAR,
        suite VARCHAR NOT NULL,
        release VARCHAR,
        framework_version VARCHAR,
        device_model VARCHAR,
        driver VARCHAR,
        runtime VARCHAR,
        image_digest VARCHAR,
        python VARCHAR,
        numpy VARCHAR,
        evidence_kind VARCHAR NOT NULL,
        prediction_method VARCHAR,
        prediction_target VARCHAR,
        run_id VARCHAR,
        cell_dir VARCHAR,
        label VARCHAR,
        machine VARCHAR,
        started_at TIMESTAMP,
        planned_cases INTEGER NOT NULL,
        plan_sha256 VARCHAR NOT NULL,
        plan_json VARCHAR NOT NULL,
        env_json VARCHAR,
        ingest_id VARCHAR NOT NULL
    )
    """,
    """
    CREATE TABLE sessions (
        cell_key VARCHAR NOT NULL,
        session_sha256 VARCHAR NOT NULL,
        idx INTEGER,
        status VARCHAR NOT NULL,
        reason VARCHAR,
        started_at VARCHAR,
        ended_at VARCHAR,
        integrity VARCHAR NOT NULL,
        integrity_detail VARCHAR,
        line_json VARCHAR NOT NULL,
        ingest_id VARCHAR NOT NULL
    )
    """,
    """
    CREATE TABLE records (
        cell_key VARCHAR NOT NULL,
        record_sha256 VARCHAR NOT NULL,
        record_kind VARCHAR NOT NULL,
        case_id VARCHAR NOT NULL,
        function VARCHAR NOT NULL,
        study_test_file VARCHAR,
        case_name VARCHAR,
        case_code_sha256 VARCHAR,
        case_file_sha256 VARCHAR,
        dtype VARCHAR,
        mode VARCHAR,
        outcome VARCHAR NOT NULL,
        stage VARCHAR,
        category VARCHAR,
        rule VARCHAR,
        error_type VARCHAR,
        message VARCHAR,
        evidence_kind VARCHAR NOT NULL,
        prediction_method VARCHAR,
        prediction_target VARCHAR,
        fallback BOOLEAN NOT NULL,
        fails_on_cpu BOOLEAN NOT NULL,
        for_dead_supervisor BOOLEAN NOT NULL,
        cold_ms DOUBLE,
        warm_median_ms DOUBLE,
        warm_samples_ms DOUBLE[],
        started_at VARCHAR,
        release VARCHAR,
        python VARCHAR,
        numpy VARCHAR,
        record_json VARCHAR NOT NULL,
        ingest_id VARCHAR NOT NULL
    )
    """,
)

# The views every reader reads. A cell is tampered when any of its sessions says so (issue
# 27's verdict); its records stay in the store, stored as such, and out of every view of
# results. One record per case and cell: a host record of a dead supervisor's case gives
# way to the supervisor's record of it (the contract's rule), and of two records of one
# case with different content (two copies of a cell that disagree) the first ingested
# counts, as the first line of a results file does.
_VIEWS = (
    """
    CREATE OR REPLACE VIEW cell_state AS
    SELECT
        c.cell_key,
        coalesce(bool_or(s.integrity = 'tampered'), false) AS tampered,
        CASE
            WHEN bool_or(s.integrity = 'tampered') THEN 'tampered'
            WHEN bool_or(s.integrity = 'intact') THEN 'intact'
            ELSE 'unchecked'
        END AS integrity,
        arg_max(s.integrity_detail, s.integrity = 'tampered') AS integrity_detail,
        arg_max(s.status, coalesce(s.ended_at, '') || lpad(coalesce(s.idx, 0)::VARCHAR, 9, '0'))
            AS last_status,
        count(s.session_sha256) AS session_count
    FROM cells c LEFT JOIN sessions s USING (cell_key)
    GROUP BY c.cell_key
    """,
    """
    CREATE OR REPLACE VIEW counted_records AS
    SELECT r.* EXCLUDE (rank_in_case)
    FROM (
        SELECT r.*, row_number() OVER (
            PARTITION BY r.cell_key, r.case_id
            ORDER BY r.for_dead_supervisor, i.ingested_at, r.started_at, r.record_sha256
        ) AS rank_in_case
        FROM records r JOIN ingests i USING (ingest_id)
    ) r
    WHERE r.rank_in_case = 1
    """,
    """
    CREATE OR REPLACE VIEW case_results AS
    SELECT
        r.*,
        c.cell_id, c.framework, c.accelerator, c.profile, c.backend, c.suite,
        coalesce(r.release, c.release) AS cell_release,
        c.device_model, c.driver, c.runtime, c.image_digest,
        coalesce(r.python, c.python) AS cell_python,
        coalesce(r.numpy, c.numpy) AS cell_numpy,
        c.run_id, c.cell_dir, c.label, c.machine, c.started_at AS cell_started_at,
        s.last_status
    FROM counted_records r
    JOIN cells c USING (cell_key)
    JOIN cell_state s USING (cell_key)
    WHERE NOT s.tampered
    """,
)


@dataclass(frozen=True)
class Migration:
    """One step: from ``version - 1`` to ``version``."""

    version: int
    what: str
    apply: Callable[[duckdb.DuckDBPyConnection], None]


def _statements(*sql: str) -> Callable[[duckdb.DuckDBPyConnection], None]:
    def run(con: duckdb.DuckDBPyConnection) -> None:
        for statement in sql:
            con.execute(statement)

    return run


_PLANNED_V2 = (
    """
    CREATE TABLE planned (
        cell_key VARCHAR NOT NULL,
        function VARCHAR NOT NULL,
        study_test_file VARCHAR,
        cases INTEGER NOT NULL
    )
    """,
    # Cells stored before schema 2: their functions, read from the plan each row keeps.
    """
    INSERT INTO planned
    SELECT c.cell_key, f ->> 'function', f ->> 'study_test_file',
           coalesce(json_array_length(f -> 'cases'), 0)::INTEGER
    FROM cells c, unnest(from_json(c.plan_json -> 'functions', '["JSON"]')) AS t(f)
    """,
)


#: Columns kept with zstd from schema 3: long JSON texts and random hashes, which DuckDB's
#: own string compression (dictionary, FSST) barely shrinks.
_ZSTD_V3 = {
    "records": ("record_json", "record_sha256", "message"),
    "sessions": ("line_json", "session_sha256"),
    "cells": ("plan_json", "env_json"),
}


def _zstd_columns(con: duckdb.DuckDBPyConnection) -> None:
    """Rebuild each table of :data:`_ZSTD_V3` with its long texts compressed by zstd (the
    views that read them are made again after every migration)."""
    for view in ("case_results", "counted_records", "cell_state"):
        con.execute(f"DROP VIEW IF EXISTS {view}")
    for table, packed in _ZSTD_V3.items():
        columns = con.execute(f"DESCRIBE {table}").fetchall()
        parts = []
        for name, kind, nullable, *_ in columns:
            part = f"{name} {kind}" + ("" if nullable == "YES" else " NOT NULL")
            parts.append(part + (" USING COMPRESSION zstd" if name in packed else ""))
        con.execute(f"CREATE TABLE {table}_v3 ({', '.join(parts)})")
        con.execute(f"INSERT INTO {table}_v3 SELECT * FROM {table}")
        con.execute(f"DROP TABLE {table}")
        con.execute(f"ALTER TABLE {table}_v3 RENAME TO {table}")


def migrations() -> list[Migration]:
    """Every step from schema 1 to :data:`SCHEMA_VERSION`, in order."""
    return [
        Migration(2, "planned functions per cell", _statements(*_PLANNED_V2)),
        Migration(3, "long texts and hashes kept with zstd", _zstd_columns),
    ]


def tables_of(version: int) -> tuple[str, ...]:
    """The tables of schema ``version`` (what an export of that schema holds)."""
    return tuple(t for v in sorted(_TABLES) if v <= version for t in _TABLES[v])


def create(con: duckdb.DuckDBPyConnection) -> None:
    """The tables of schema 1 in an empty store; :func:`migrations` then bring it up to date."""
    _statements(*_TABLES_V1)(con)
    con.execute("INSERT INTO meta VALUES ('schema', '1')")


def views(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the views of the current schema."""
    _statements(*_VIEWS)(con)
