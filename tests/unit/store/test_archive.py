"""Cell archives: packed here, ingested there only whole; anything else refused whole."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from portbench.store.archive import ARCHIVE_ROOT, CONTENTS

from .cells import counts, portbench


def _pack(runs: Path) -> Path:
    archive = runs.parent / "cells.tar.gz"
    result = portbench("pack", str(runs), "--out", str(archive))
    assert result.returncode == 0, result.stderr
    assert "2 cell(s), 3 record(s)" in result.stdout
    return archive


Members = list[tuple[tarfile.TarInfo, bytes]]


def _members(archive: Path) -> Members:
    with tarfile.open(archive, "r:gz") as tar:
        return [
            (m, tar.extractfile(m).read() if m.isreg() else b"")  # type: ignore[union-attr]
            for m in tar.getmembers()
        ]


def _write(members: Members, archive: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    archive.write_bytes(gzip.compress(buffer.getvalue()))


def _results(members: Members) -> int:
    return next(
        i for i, (m, _) in enumerate(members) if m.name.endswith("torch-cpu-current/results.jsonl")
    )


def _relist(members: Members) -> None:
    """CONTENTS.json made to agree with the members (a forger's archive)."""
    files = {
        m.name.split("/", 1)[1]: {"size": len(d), "sha256": hashlib.sha256(d).hexdigest()}
        for m, d in members
        if m.isreg() and not m.name.endswith(CONTENTS)
    }
    listing = json.dumps({"schema": 1, "kind": "cells-archive", "files": files}).encode()
    members[0] = (members[0][0], listing)


def _changed_record(members: Members) -> None:
    at = _results(members)
    info, data = members[at]
    members[at] = (info, data.replace(b'"outcome":"fail"', b'"outcome":"pass"'))


def _record_the_reader_refuses(members: Members) -> None:
    at = _results(members)
    info, data = members[at]
    line = json.loads(data.splitlines()[0])
    line["outcome"] = "maybe"
    members[at] = (info, data + (json.dumps(line) + "\n").encode())
    _relist(members)


def _deep_record(members: Members) -> None:
    at = _results(members)
    info, data = members[at]
    members[at] = (info, data + b"[" * 5000 + b"]" * 5000 + b"\n")
    _relist(members)


def _link(members: Members) -> None:
    info = tarfile.TarInfo(f"{ARCHIVE_ROOT}/cells/r1/torch-cpu-current/env.json")
    info.type = tarfile.SYMTYPE
    info.linkname = "/etc/passwd"
    members[[m.name for m, _ in members].index(info.name)] = (info, b"")


def _extra_file(members: Members) -> None:
    info = tarfile.TarInfo(f"{ARCHIVE_ROOT}/cells/r1/torch-cpu-current/results.jsonl.orig")
    info.type = tarfile.REGTYPE
    members.append((info, b"{}\n"))


def _extra_listed_file(members: Members) -> None:
    info = tarfile.TarInfo(f"{ARCHIVE_ROOT}/cells/r1/torch-cpu-current/notes.txt")
    info.type = tarfile.REGTYPE
    members.append((info, b"hello\n"))
    _relist(members)


def _record_of_another_cell(members: Members) -> None:
    at = _results(members)
    info, data = members[at]
    members[at] = (
        info,
        data.replace(b'"cell":"torch/cpu/current"', b'"cell":"torch/cpu/paper"', 1),
    )
    _relist(members)


def _outside_path(members: Members) -> None:
    info = tarfile.TarInfo(f"{ARCHIVE_ROOT}/../evil.json")
    info.type = tarfile.REGTYPE
    members.append((info, b"{}"))


def _missing_file(members: Members) -> None:
    del members[_results(members)]


DAMAGE: dict[str, tuple[Callable[[Members], None], str]] = {
    "changed record": (_changed_record, "does not hash to what CONTENTS.json lists"),
    "record the reader refuses": (_record_the_reader_refuses, "do not read"),
    "record nested too deep": (_deep_record, "do not read"),
    "link": (_link, "is a link"),
    "extra file": (_extra_file, "not a file of a cell archive"),
    "extra listed file": (_extra_listed_file, "not a file of a cell archive"),
    "record of another cell": (_record_of_another_cell, "a record of cell"),
    "path outside": (_outside_path, "outside portbench-cells/"),
    "missing file": (_missing_file, "which it lacks"),
}


def test_a_packed_archive_ingests_whole_and_again_adds_nothing(tmp_path: Path, runs: Path) -> None:
    archive = _pack(runs)
    store = tmp_path / "s.duckdb"
    first = portbench("ingest", "--store", str(store), str(archive))
    assert first.returncode == 0, first.stderr
    assert "3 new record(s) in 2 new cell(s)" in first.stdout
    again = portbench("ingest", "--store", str(store), str(archive), str(runs))
    assert again.returncode == 0 and again.stdout.count("nothing new") == 2
    assert counts(store)["records"] == 3


def test_packing_is_reproducible(tmp_path: Path, runs: Path) -> None:
    first = _pack(runs)
    second = tmp_path / "again.tar.gz"
    assert portbench("pack", str(runs), "--out", str(second)).returncode == 0
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_archive_is_refused_whole_and_nothing_is_stored(
    tmp_path: Path, runs: Path, damage: str
) -> None:
    archive = _pack(runs)
    store = tmp_path / "s.duckdb"
    # The store already holds a cell: a refusal leaves it as it was.
    seeded = portbench("ingest", "--store", str(store), str(runs / "r2"))
    assert seeded.returncode == 0, seeded.stderr
    before = counts(store)
    members = _members(archive)
    change, why = DAMAGE[damage]
    change(members)
    _write(members, archive)
    result = portbench("ingest", "--store", str(store), str(archive))
    assert result.returncode != 0
    assert "refused whole and nothing of it stored" in result.stderr, result.stderr
    assert why in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert counts(store) == before


def test_a_report_archive_or_garbage_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    garbage = tmp_path / "cells.tar.gz"
    garbage.write_bytes(b"\x1f\x8b not really gzip")
    result = portbench("ingest", "--store", str(store), str(garbage))
    assert result.returncode != 0 and "refused whole" in result.stderr
    assert "Traceback" not in result.stderr


def test_cells_read_in_worker_processes_store_the_same_and_a_refusal_there_refuses_whole(
    tmp_path: Path, runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from portbench.store import reading
    from portbench.store.archive import ArchiveRefused
    from portbench.store.commands import _ingest_archive, _ingest_cells
    from portbench.store.db import open_store

    monkeypatch.setattr(reading, "POOL_MIN_BYTES", 0)  # a pool even for small cells
    archive = _pack(runs)
    pooled, single = tmp_path / "pooled.duckdb", tmp_path / "single.duckdb"
    with open_store(pooled, write=True) as con:
        assert _ingest_archive(con, archive, 2).records_added == 3
    with open_store(single, write=True) as con:
        cells = sorted(p.parent for p in runs.rglob("plan.json"))
        assert _ingest_cells(con, cells, "runs", 1).records_added == 3
    import duckdb

    def rows(store: Path) -> list[tuple[str, ...]]:
        con = duckdb.connect(str(store), read_only=True)
        try:
            return sorted(
                con.execute("SELECT cell_key, record_sha256, outcome FROM records").fetchall()
            )
        finally:
            con.close()

    assert rows(pooled) == rows(single)
    members = _members(archive)
    _record_the_reader_refuses(members)
    _write(members, archive)
    before = counts(pooled)
    with open_store(pooled, write=True) as con, pytest.raises(ArchiveRefused, match="do not read"):
        _ingest_archive(con, archive, 2)
    assert counts(pooled) == before
