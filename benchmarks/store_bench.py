"""The store and the scoreboard: ingest speed through the typed reader, Parquet re-ingest,
store size per million records, site build time (opt-in: ``run.py --only store``).

- **JSONL ingest**: ``records`` synthetic records (benchmarks/store_data.py: records of
  the contract's own shape, warm samples included) ingested into a new store, with one
  process and with the default pool of readers; beside it the typed reader alone
  (``read_results`` over the same files), and where one process's time goes (reading
  the cell through the typed layer, encoding and hashing its rows, DuckDB).
- **Parquet re-ingest**: the store exported, and the export ingested into a new store.
- **Size**: the store's bytes per million records (synthetic), and the export's.
- **Real data**: results/reference/ and the study's cells (and every run directory named with
  ``--runs``, e.g. issue 28's sweeps): ingest speed, store size, site build time.
- **Site build**: the scoreboard from the real data and from the synthetic sweep.

    python benchmarks/store_bench.py [--records N] [--runs DIR...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, Row
from store_data import bulk, sweep

TARGET_JSONL = 40_000
TARGET_PARQUET = 500_000


def _portbench(*args: str) -> float:
    """Run the command in its own process; its wall time (it must succeed)."""
    import os

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "runners")]))
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "portbench", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"portbench {' '.join(args)} failed: {result.stderr.strip()[-400:]}")
    return elapsed


def _store_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.suffix != ".lock")


def _phases(folder: Path) -> list[Row]:
    """One process, one cell at a time: the typed reader, rows and hashes, DuckDB."""
    from portbench.report.load import find_cells
    from portbench.results import read_results
    from portbench.store.bundle import read_cell
    from portbench.store.db import open_store
    from portbench.store.ingest import Source, ingest_reads
    from portbench.store.reading import read_bundle

    cells = find_cells([folder])
    started = time.perf_counter()
    records = sum(len(read_results(c / "results.jsonl").records) for c in cells)
    reader_s = time.perf_counter() - started
    read_s = rows_s = 0.0
    reads = []
    for cell in cells:
        t0 = time.perf_counter()
        bundle = read_cell(cell, strict=False)
        t1 = time.perf_counter()
        reads.append(read_bundle(bundle, "benchmark", cell.name))
        t2 = time.perf_counter()
        read_s += t1 - t0
        rows_s += t2 - t1
    with tempfile.TemporaryDirectory() as scratch, open_store(
        Path(scratch) / "s.duckdb", write=True
    ) as con:
        t0 = time.perf_counter()
        ingest_reads(con, reads, Source("benchmark", "directory"), "benchmark")
        db_s = time.perf_counter() - t0
    total = read_s + rows_s + db_s
    note = "one process; where an ingest's time goes"
    return [
        Row("store", "typed reader alone (read_results)", records / reader_s, "records/s", TARGET_JSONL, None, "results.jsonl lines decoded and checked, no store"),
        Row("store", "share: cell read through the typed layer", 100 * read_s / total, "%", note=note),
        Row("store", "share: canonical JSON, hashes, rows", 100 * rows_s / total, "%", note=note),
        Row("store", "share: dedup, Arrow, DuckDB insert", 100 * db_s / total, "%", note=note),
    ]  # fmt: skip


def _ingest_in_process(store: Path, folder: Path, workers: int | None) -> tuple[int, float]:
    """(records added, seconds) of ingesting ``folder`` in this process: the store opened,
    the cells read (a pool of ``workers`` where it pays), rows stored, committed."""
    from portbench.report.load import find_cells
    from portbench.store.db import open_store
    from portbench.store.ingest import Source, ingest_jobs
    from portbench.store.reading import CellJob

    jobs = [CellJob(p) for p in find_cells([folder])]
    started = time.perf_counter()
    with open_store(store, write=True) as con:
        summary = ingest_jobs(con, jobs, Source(str(folder), "directory"), workers)
    return summary.records_added, time.perf_counter() - started


def _synthetic(records: int, work: Path) -> list[Row]:
    from portbench.store.db import open_store
    from portbench.store.export import export_store, ingest_export
    from portbench.store.reading import default_workers

    data = work / "synthetic"
    made = bulk(data, records, per_cell=5000)
    rows: list[Row] = []
    for workers in (1, default_workers()):
        store = work / f"synthetic-{workers}.duckdb"
        added, elapsed = _ingest_in_process(store, data, workers)
        assert added == made, (added, made)
        rows.append(
            Row(
                "store",
                f"JSONL ingest, {made} records, {workers} reader process(es)",
                made / elapsed,
                "records/s",
                TARGET_JSONL,
                None,
                "typed reader, hashes, DuckDB; interpreter start-up not counted",
            )
        )
    store = work / "synthetic-1.duckdb"
    size = _store_bytes(store)
    rows.append(
        Row(
            "store",
            "store size per million records (synthetic)",
            size / made * 1e6 / 2**20,
            "MiB",
            note=f"{made} records, {size / 2**20:.1f} MiB",
        )
    )
    export = work / "export"
    with open_store(store, write=False) as con:
        export_store(con, export)
    export_bytes = sum(p.stat().st_size for p in export.iterdir())
    rows.append(
        Row(
            "store",
            "export size per million records (Parquet, zstd)",
            export_bytes / made * 1e6 / 2**20,
            "MiB",
        )
    )
    started = time.perf_counter()
    with open_store(work / "from-export.duckdb", write=True) as con:
        summary = ingest_export(con, export)
    elapsed = time.perf_counter() - started
    assert summary.added["records"] == made
    rows.append(
        Row(
            "store",
            f"Parquet re-ingest, {made} records",
            made / elapsed,
            "records/s",
            TARGET_PARQUET,
            None,
            "file hashes, checks in SQL (every record's hash), insert; start-up not counted",
        )
    )
    elapsed = _portbench("ingest", "--store", str(work / "cli.duckdb"), str(export))
    rows.append(
        Row(
            "store",
            "the same through the command",
            elapsed,
            "s",
            note="interpreter and portbench start-up included",
        )
    )
    rows += _phases(data)
    return rows


def _real(runs: list[Path], work: Path) -> list[Row]:
    store = work / "real.duckdb"
    elapsed = _portbench("ingest", "--store", str(store), *map(str, runs), "--study")
    import duckdb

    con = duckdb.connect(str(store), read_only=True)
    count = con.execute("SELECT count(*) FROM records").fetchone()[0]  # type: ignore[index]
    cells = con.execute("SELECT count(*) FROM cells").fetchone()[0]  # type: ignore[index]
    con.close()
    names = ", ".join(str(r.relative_to(ROOT)) if r.is_relative_to(ROOT) else str(r) for r in runs)
    rows = [
        Row("store", f"real data ingest ({names} + the study)", count / elapsed, "records/s", TARGET_JSONL, None, f"{count} records, {cells} cells; study import cached"),
        Row("store", "real data store size", _store_bytes(store) / 2**20, "MiB", note=f"{count} records"),
    ]  # fmt: skip
    elapsed = _portbench("scoreboard", "--store", str(store), "--out", str(work / "site-real"))
    pages = sum(1 for _ in (work / "site-real").rglob("*.html"))
    rows.append(
        Row("store", "site build, real data", elapsed, "s", note=f"{pages} pages; whole command")
    )
    sweep_dir = work / "sweep"
    sweep(sweep_dir)
    _portbench("ingest", "--store", str(work / "sweep.duckdb"), str(sweep_dir))
    elapsed = _portbench(
        "scoreboard", "--store", str(work / "sweep.duckdb"), "--out", str(work / "site-sweep")
    )
    rows.append(
        Row(
            "store",
            "site build, synthetic sweep",
            elapsed,
            "s",
            note="benchmarks/store_data.py sweep",
        )
    )
    return rows


def run(quick: bool, records: int | None = None, runs: list[Path] | None = None) -> list[Row]:
    count = records or (20_000 if quick else 1_000_000)
    work = Path(tempfile.mkdtemp(prefix="portbench-store-bench-"))
    try:
        rows = _synthetic(count, work)
        rows += _real(runs or [ROOT / "results" / "reference"], work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--records", type=int, default=None, help="synthetic records (default 1,000,000)"
    )
    parser.add_argument(
        "--runs",
        type=Path,
        nargs="*",
        default=None,
        help="real run directories (default: results/reference)",
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rows = run(False, args.records, args.runs)
    for row in rows:
        print(f"{row.item:60s} {row.value:14.4g} {row.unit:10s} {row.note}")
    if args.json:
        args.json.write_text(json.dumps([r.to_json() for r in rows], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
