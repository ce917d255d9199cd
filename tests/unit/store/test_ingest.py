"""Ingesting run directories: every kind of cell through the typed layer, once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from conftest import ROOT

from portbench.store.bundle import read_cell
from portbench.store.db import open_store
from portbench.store.ingest import Source, ingest_bundles

from .cells import CaseSpec, CellSpec, counts, portbench, write_cell

REFERENCE = ROOT / "results" / "reference"
FIXTURES = ROOT / "tests" / "data" / "cells"


def _ingest(store: Path, *folders: Path) -> list[str]:
    from portbench.report.load import find_cells

    sentences = []
    with open_store(store, write=True) as con:
        for folder in folders:
            bundles = (read_cell(p, strict=False) for p in find_cells([folder]))
            sentences.append(
                ingest_bundles(con, bundles, Source(str(folder), "directory")).sentence()
            )
    return sentences


def test_the_reference_runs_and_every_fixture_schema_ingest_and_a_second_ingest_adds_nothing(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store.duckdb"
    _ingest(store, REFERENCE, FIXTURES)
    first = counts(store)
    lines = sum(
        1
        for path in REFERENCE.rglob("results.jsonl")
        for line in path.read_text().splitlines()
        if line.strip()
    )
    con = duckdb.connect(str(store), read_only=True)
    reference = con.execute(
        "SELECT count(*) FROM records r JOIN cells c USING (cell_key) WHERE c.run_id LIKE '2026%'"
    ).fetchone()
    suites = dict(con.execute("SELECT suite, count(*) FROM cells GROUP BY suite").fetchall())
    con.close()
    assert reference == (lines,)
    # Census and study cells ingest with no path of their own.
    assert suites["census"] == 1 and suites["study"] == 1 and suites["cases"] >= 14
    sentences = _ingest(store, REFERENCE, FIXTURES)
    assert counts(store) == first
    assert all("nothing new" in s for s in sentences)


def test_a_damaged_line_is_skipped_and_counted_the_rest_stored(tmp_path: Path) -> None:
    cell = write_cell(
        tmp_path / "runs",
        CellSpec("torch", "cpu", "2.13.0", [CaseSpec("torch.add::a"), CaseSpec("torch.add::b")]),
    )
    with open(cell / "results.jsonl", "a") as handle:
        handle.write('{"schema": 4, "kind": "case", "cut sh')
    store = tmp_path / "s.duckdb"
    (sentence,) = _ingest(store, tmp_path / "runs")
    assert counts(store)["records"] == 2
    assert "1 line(s) skipped as unreadable" in sentence


def test_a_record_the_store_holds_for_a_case_with_other_content_is_a_conflict_the_first_counts(
    tmp_path: Path,
) -> None:
    spec = CellSpec("torch", "cpu", "2.13.0", [CaseSpec("torch.add::a")])
    first = write_cell(tmp_path / "one", spec)
    second = write_cell(tmp_path / "two", spec)
    lines = (second / "results.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record.update(outcome="fail", stage="call", category="type", timing=None,
                  error={"type": "TypeError", "message": "changed", "traceback": ""})  # fmt: skip
    (second / "results.jsonl").write_text(json.dumps(record) + "\n")
    store = tmp_path / "s.duckdb"
    _ingest(store, first.parent)
    (sentence,) = _ingest(store, second.parent)
    assert "1 record(s) differ" in sentence
    con = duckdb.connect(str(store), read_only=True)
    assert con.execute("SELECT outcome FROM case_results").fetchall() == [("pass",)]
    assert con.execute("SELECT count(*) FROM records").fetchone() == (2,)
    con.close()


def test_a_tampered_cell_is_stored_as_such_and_kept_out_of_every_view(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_cell(runs, CellSpec("torch", "cpu", "2.13.0", [CaseSpec("torch.add::a")]), "ok")
    write_cell(
        runs,
        CellSpec("torch", "cpu", "2.13.0", [CaseSpec("torch.add::a", "pass")], host="b",
                 tampered="results.jsonl changed after the supervisor wrote it"),
        "bad",
    )  # fmt: skip
    store = tmp_path / "s.duckdb"
    _ingest(store, runs)
    con = duckdb.connect(str(store), read_only=True)
    assert con.execute("SELECT count(*) FROM records").fetchone() == (2,)
    assert con.execute("SELECT count(*) FROM case_results").fetchone() == (1,)
    assert con.execute(
        "SELECT integrity, integrity_detail FROM cell_state WHERE tampered"
    ).fetchall() == [("tampered", "results.jsonl changed after the supervisor wrote it")]
    con.close()


def test_a_host_record_of_a_dead_supervisors_case_gives_way_to_the_resumed_record(
    tmp_path: Path,
) -> None:
    killed = FIXTURES / "killed3" / "python-cpu-host"
    cell = tmp_path / "run" / "python-cpu-host"
    shutil.copytree(killed, cell)
    lines = [json.loads(x) for x in (cell / "results.jsonl").read_text().splitlines() if x.strip()]
    host = [r for r in lines if r.get("worker", {}).get("pid") is None]
    assert host, "the fixture holds the host's record of a dead supervisor's case"
    store = tmp_path / "s.duckdb"
    # First ingest: the cell as the kill left it, the host record counted.
    _ingest(store, tmp_path / "run")
    case = host[0]["case"]
    con = duckdb.connect(str(store), read_only=True)
    assert con.execute("SELECT outcome FROM case_results WHERE case_id = ?", [case]).fetchall() == [
        ("fail",)
    ]
    con.close()
    resumed = dict(host[0], outcome="pass", stage=None, category=None, reason=None,
                   worker={"pid": 4242, "index": 1}, started_at="2026-11-24T13:00:00.000+00:00")  # fmt: skip
    with open(cell / "results.jsonl", "a") as handle:
        handle.write(json.dumps(resumed) + "\n")
    _ingest(store, tmp_path / "run")
    con = duckdb.connect(str(store), read_only=True)
    assert con.execute("SELECT count(*) FROM records WHERE case_id = ?", [case]).fetchone() == (2,)
    assert con.execute("SELECT outcome FROM case_results WHERE case_id = ?", [case]).fetchall() == [
        ("pass",)
    ]
    con.close()


def test_the_command_ingests_and_says_what_was_new(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_cell(runs, CellSpec("jax", "cpu", "0.6.2", [CaseSpec("jax.numpy.add::a")]))
    store = tmp_path / "s.duckdb"
    first = portbench("ingest", "--store", str(store), str(runs))
    second = portbench("ingest", "--store", str(store), str(runs))
    assert first.returncode == 0, first.stderr
    assert "1 new record(s) in 1 new cell(s)" in first.stdout
    assert second.returncode == 0 and "nothing new" in second.stdout
    assert counts(store)["ingests"] == 1


def test_a_path_that_does_not_exist_is_one_sentence(tmp_path: Path) -> None:
    result = portbench("ingest", "--store", str(tmp_path / "s.duckdb"), str(tmp_path / "nope"))
    assert result.returncode != 0
    assert "does not exist" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("garbage", [b"not a database", b"SQLite format 3\x00" + b"\x00" * 100])
def test_a_file_that_is_not_a_store_is_one_sentence(tmp_path: Path, garbage: bytes) -> None:
    store = tmp_path / "s.duckdb"
    store.write_bytes(garbage)
    result = portbench("scoreboard", "--store", str(store), "--out", str(tmp_path / "site"))
    assert result.returncode != 0
    assert "does not open as a store" in result.stderr and "Traceback" not in result.stderr


def test_the_studys_cells_ingest_as_cells_and_a_missing_source_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from portbench.cli import main

    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), "--study"]) == 0
    con = duckdb.connect(str(store), read_only=True)
    suites = con.execute("SELECT DISTINCT suite FROM cells").fetchall()
    profiles = {row[0] for row in con.execute("SELECT profile FROM cells").fetchall()}
    study = con.execute("SELECT count(*) FROM case_results WHERE suite = 'study'").fetchone()
    con.close()
    assert suites == [("study",)] and profiles == {"study", "study-soft"}
    assert study is not None and study[0] > 10_000
    capsys.readouterr()
    assert main(["ingest", "--store", str(store), "--study", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err
