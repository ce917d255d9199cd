"""Parquet exports: a store ingests another's, once; a changed export is refused whole."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from portbench.cli import main
from portbench.store.db import open_store
from portbench.store.export import EXPORT, ingest_export

from .cells import CaseSpec, CellSpec, counts, write_cell


def _store_with_cells(runs: Path) -> Path:
    """The common cells, and a tampered torch cell in r2: four records, three of them counted."""
    write_cell(
        runs,
        CellSpec("torch", "cpu", "2.15.0", [CaseSpec("torch.add::a")], tampered="changed"),
        "r2",
    )
    store = runs.parent / "a.duckdb"
    assert main(["ingest", "--store", str(store), str(runs)]) == 0
    return store


def test_an_export_ingests_into_another_store_whole_and_once(tmp_path: Path, runs: Path) -> None:
    store = _store_with_cells(runs)
    export = tmp_path / "export"
    assert main(["ingest", "--store", str(store), "--export", str(export)]) == 0
    assert json.loads((export / EXPORT).read_text())["files"]["records.parquet"]["rows"] == 4
    other = tmp_path / "b.duckdb"
    assert main(["ingest", "--store", str(other), str(export)]) == 0
    mine, theirs = counts(store), counts(other)
    # The receiving store logs the export's ingest beside the one it carries.
    assert {k: v for k, v in theirs.items() if k != "ingests"} == {
        k: v for k, v in mine.items() if k != "ingests"
    }
    assert theirs["ingests"] == mine["ingests"] + 1
    con = duckdb.connect(str(other), read_only=True)
    # The tampered cell travels as such and stays out of the views.
    assert con.execute("SELECT count(*) FROM case_results").fetchone() == (3,)
    assert con.execute("SELECT count(*) FROM cell_state WHERE tampered").fetchone() == (1,)
    con.close()
    assert main(["ingest", "--store", str(other), str(export)]) == 0
    assert counts(other) == theirs


def test_the_typed_reader_can_check_every_record_of_an_export(tmp_path: Path, runs: Path) -> None:
    store = _store_with_cells(runs)
    export = tmp_path / "export"
    assert main(["ingest", "--store", str(store), "--export", str(export)]) == 0
    other = tmp_path / "b.duckdb"
    with open_store(other, write=True) as con:
        summary = ingest_export(con, export, verify_records=True)
    assert summary.added["records"] == 4


def _rewrite_records(export: Path, sql: str) -> None:
    """Change records.parquet by ``sql`` over it (as t) and list its new hash, as a forger would."""
    path = export / "records.parquet"
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_parquet('{path}')")
    con.execute(sql)
    con.execute(f"COPY t TO '{path}' (FORMAT parquet)")
    con.close()
    import hashlib

    listing = json.loads((export / EXPORT).read_text())
    listing["files"]["records.parquet"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (export / EXPORT).write_text(json.dumps(listing))


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("changed file", "does not hash to what EXPORT.json lists"),
        ("changed record", "does not hash to its key"),
        ("unknown outcome", "an outcome the contract does not know"),
        ("extra file", "not one of"),
        ("link", "not a regular file"),
        ("orphan record", "of no cell"),
    ],
)
def test_a_changed_export_is_refused_whole(
    tmp_path: Path, runs: Path, damage: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _store_with_cells(runs)
    export = tmp_path / "export"
    assert main(["ingest", "--store", str(store), "--export", str(export)]) == 0
    if damage == "changed file":
        with open(export / "sessions.parquet", "ab") as handle:
            handle.write(b"\0")
    elif damage == "changed record":
        _rewrite_records(
            export,
            "UPDATE t SET record_json = replace(record_json, '\"fail\"', '\"pass\"'), outcome = 'pass'",
        )
    elif damage == "unknown outcome":
        _rewrite_records(export, "UPDATE t SET outcome = 'maybe'")
    elif damage == "extra file":
        (export / "notes.txt").write_text("hello")
    elif damage == "link":
        # The same bytes, behind a link: the hash matches, the link is refused.
        (export / "planned.parquet").rename(tmp_path / "planned.real")
        (export / "planned.parquet").symlink_to(tmp_path / "planned.real")
    elif damage == "orphan record":
        _rewrite_records(export, "UPDATE t SET cell_key = repeat('0', 64)")
    other = tmp_path / "b.duckdb"
    seeded = tmp_path / "runs2"
    write_cell(seeded, CellSpec("jax", "cpu", "0.6.2", [CaseSpec("jax.numpy.add::a")]))
    assert main(["ingest", "--store", str(other), str(seeded)]) == 0
    before = counts(other)
    capsys.readouterr()
    assert main(["ingest", "--store", str(other), str(export)]) != 0
    err = capsys.readouterr().err
    assert "refused whole and nothing of it stored" in err and why in err, err
    assert counts(other) == before
