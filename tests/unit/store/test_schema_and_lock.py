"""The store's schema versions (migration, newer refused) and its lock (real processes)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from conftest import ROOT

from portbench.cli import main
from portbench.store.db import StoreError, open_store
from portbench.store.schema import SCHEMA_VERSION

from .cells import counts

sys.path.insert(0, str(ROOT / "benchmarks"))
from store_data import bulk


def _store(runs: Path) -> Path:
    store = runs.parent / "s.duckdb"
    assert main(["ingest", "--store", str(store), str(runs)]) == 0
    return store


def test_a_schema_1_store_is_migrated_and_its_planned_functions_come_from_its_plans(
    runs: Path,
) -> None:
    store = _store(runs)
    con = duckdb.connect(str(store))
    expected = sorted(con.execute("SELECT * FROM planned").fetchall())
    # What a schema 1 store was: no `planned` table.
    con.execute("DROP TABLE planned")
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    con.close()
    with open_store(store, write=False) as con:  # a reader migrates too
        assert con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (
            str(SCHEMA_VERSION),
        )
        assert sorted(con.execute("SELECT * FROM planned").fetchall()) == expected
    assert "torch.mul" in {row[1] for row in expected}  # a function with no record counts


def test_migrating_keeps_every_row_and_packs_the_long_texts(runs: Path) -> None:
    store = _store(runs)
    tables = ("cells", "sessions", "records", "planned", "ingests")
    con = duckdb.connect(str(store))
    before = {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    # What a schema 2 store was: the same tables, their texts compressed as DuckDB chose.
    for view in ("case_results", "counted_records", "cell_state"):
        con.execute(f"DROP VIEW {view}")
    for table in ("records", "sessions", "cells"):
        con.execute(f"CREATE TABLE {table}_v2 AS SELECT * FROM {table}")
        con.execute(f"DROP TABLE {table}")
        con.execute(f"ALTER TABLE {table}_v2 RENAME TO {table}")
    con.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    con.close()
    with open_store(store, write=True) as con:
        con.execute("CHECKPOINT")
        after = {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
        packed = con.execute(
            "SELECT DISTINCT compression FROM pragma_storage_info('records') "
            "WHERE column_name = 'record_json' AND segment_type = 'VARCHAR'"
        ).fetchall()
        assert con.execute("SELECT count(*) FROM case_results").fetchone() == (3,)
    assert after == before
    assert packed == [("ZSTD",)]


def test_a_store_of_a_newer_schema_is_refused_in_one_sentence(
    tmp_path: Path, runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _store(runs)
    con = duckdb.connect(str(store))
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    con.close()
    before = store.read_bytes()
    for write in (True, False):
        refused = pytest.raises(StoreError, match="schema 99, newer than this portbench")
        with refused, open_store(store, write=write):
            pass
    assert main(["scoreboard", "--store", str(store), "--out", str(tmp_path / "site")]) == 8
    assert "upgrade portbench" in capsys.readouterr().err
    assert store.read_bytes() == before


def _ingest_process(store: Path, folder: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "runners")]))
    return subprocess.Popen(
        [sys.executable, "-m", "portbench", "ingest", "--store", str(store), str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


@pytest.mark.slow
def test_concurrent_ingests_are_serialized_never_interleaved(tmp_path: Path) -> None:
    folders = []
    for index in range(4):
        folder = tmp_path / f"runs{index}"
        bulk(folder, 3000, per_cell=1000, seed=index, machine=f"m{index}")
        folders.append(folder)
    store = tmp_path / "s.duckdb"
    # Two processes on the same folder too: one stores it, the other finds nothing new.
    processes = [_ingest_process(store, f) for f in [*folders, folders[0]]]
    outputs = [p.communicate(timeout=900) for p in processes]
    for process, (_, err) in zip(processes, outputs, strict=True):
        # Without the lock, DuckDB refuses a second writer ("Could not set lock on file").
        assert process.returncode == 0, err
    assert counts(store)["records"] == 4 * 3000
    assert sum("nothing new" in out for out, _ in outputs) == 1
    con = duckdb.connect(str(store), read_only=True)
    # One ingest per folder, each holding its own folder's cells only.
    rows = con.execute(
        "SELECT i.records_added, count(*), count(DISTINCT split_part(c.machine, '-', 1)) "
        "FROM ingests i JOIN records r USING (ingest_id) JOIN cells c USING (cell_key) "
        "GROUP BY i.ingest_id, i.records_added"
    ).fetchall()
    con.close()
    assert sorted(rows) == [(3000, 3000, 1)] * 4


def test_a_reader_waits_while_a_writer_holds_the_store(tmp_path: Path, runs: Path) -> None:
    store = _store(runs)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "runners")]))
    with open_store(store, write=True) as con:
        reader = subprocess.Popen(
            [sys.executable, "-m", "portbench", "scoreboard", "--store", str(store), "--out", str(tmp_path / "site")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        assert reader.stderr is not None
        # The reader says it waits, and does, while the writer changes the store.
        said = reader.stderr.readline()
        assert f"waiting for pid {os.getpid()}" in said
        time.sleep(0.5)
        assert reader.poll() is None
        con.execute("DELETE FROM records")
        con.execute("DELETE FROM planned")
        con.execute("DELETE FROM cells")
    out, err = reader.communicate(timeout=600)
    assert reader.returncode == 0, err
    # It read the store as the writer left it, never half-way.
    assert "from 0 cell(s)" in out
