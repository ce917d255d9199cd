"""Latency comparisons over real runs (the H100 and CPU reference runs, the study's imported
cells), each number checked against a computation written here from the raw records."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from portbench.report.latency import compare, generation_pairs, latency_tables, version_tables
from portbench.report.load import Cell, load_cell, load_runs
from portbench.report.study import default_archive, import_study
from portbench.report.study_latency import published_latency

REFERENCE = ROOT / "results" / "reference"
H100 = REFERENCE / "20261122-h100-host"
CPU = REFERENCE / "20261122-cpu-host"
VERSIONS = REFERENCE / "20261122-cpu-docker"


def _warm(cell_dir: Path) -> dict[tuple[str, str], dict[str, float]]:
    """(function, study file) -> case -> warm median of passed cases, from results.jsonl."""
    out: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for line in (cell_dir / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        warm = (r.get("timing") or {}).get("warm")
        if r["outcome"] == "pass" and warm:
            out[(r["function"], r["study_test_file"])][r["case"]] = warm["median_ms"]
    return out


@pytest.mark.parametrize("framework", ["jax", "torch"])
def test_cpu_against_h100_matches_an_independent_geometric_mean(framework: str) -> None:
    cpu_dir = CPU / f"{framework}-cpu-host"
    gpu_dir = H100 / f"{framework}-gpu-h100-host"
    rows = compare(load_cell(cpu_dir), load_cell(gpu_dir))
    a, b = _warm(cpu_dir), _warm(gpu_dir)
    expected = {}
    for function in set(a) & set(b):
        shared = set(a[function]) & set(b[function])
        if shared:
            log_ratio = statistics.fmean(math.log(b[function][c] / a[function][c]) for c in shared)
            expected[function] = (len(shared), math.exp(log_ratio))
    assert {(r.function, r.study_test_file): r.cases for r in rows} == {
        f: n for f, (n, _) in expected.items()
    }
    for r in rows:
        assert r.ratio == pytest.approx(expected[(r.function, r.study_test_file)][1], rel=1e-9)
        assert r.b_ms / r.a_ms == pytest.approx(r.ratio, rel=1e-9)
        if r.low is not None and r.high is not None:
            assert r.low <= r.ratio * (1 + 1e-9) and r.ratio <= r.high * (1 + 1e-9)
    assert [r.ratio for r in rows] == sorted((r.ratio for r in rows), reverse=True)


def test_summary_shares_match_an_independent_count() -> None:
    cells = load_runs([H100, CPU])
    tables, summary = latency_tables(cells)
    assert {t.name for t in tables} == {
        "latency-jax-host-cpu-vs-gpu-h100",
        "latency-torch-host-cpu-vs-gpu-h100",
    }
    for row in summary.rows:
        framework = row[0]
        ratios = [
            r.ratio
            for r in compare(
                load_cell(CPU / f"{framework}-cpu-host"),
                load_cell(H100 / f"{framework}-gpu-h100-host"),
            )
        ]
        n = len(ratios)
        assert row[4] == n
        assert row[5] == f"{sum(1 for x in ratios if x > 1) / n:.1%}"
        assert row[7] == f"{sum(1 for x in ratios if x > 10) / n:.1%}"
    # Every pair table names its latency kind and each side's dispatch floor.
    assert all("dispatch floor" in t.note and "warm median" in t.headers[2] for t in tables)


def _raw(cell: Cell) -> list[dict[str, Any]]:
    """A cell's records as the file holds them (an independent count reads no typed layer)."""
    text = (cell.path / "results.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> list[Cell]:
    out = tmp_path_factory.mktemp("study")
    import_study(default_archive(), out)
    return [load_cell(p) for p in sorted(out.iterdir()) if p.is_dir()]


def test_generations_t4_to_a100_counted_independently(study: list[Cell]) -> None:
    table = generation_pairs(study)
    rows = {(r[0], r[2], r[3]): r for r in table.rows}
    assert ("torch", "gpu-t4", "gpu-a100") in rows and ("jax", "tpu-v2", "tpu-v3") in rows
    for framework in ("torch", "tensorflow", "jax"):
        row = rows[(framework, "gpu-t4", "gpu-a100")]
        by_id = {c.cell_id: c for c in study}
        t4, a100 = by_id[f"{framework}/gpu-t4/study"], by_id[f"{framework}/gpu-a100/study"]

        def means(cell: Cell) -> dict[str, dict[str, float]]:
            # The study's own rule: timed in every run, and passed, unrecorded, or failed by
            # the study's harness.
            # Read from the files as written, apart from the typed layer the tables use.
            runs = json.loads((cell.path / "env.json").read_text())["study"]["runs"]
            out: dict[str, dict[str, float]] = defaultdict(dict)
            for r in _raw(cell):
                study_timing = (r.get("timing") or {}).get("study")
                ok = (
                    r["outcome"] == "pass"
                    or r.get("study_outcome") in ("unrecorded", "absent from report")
                    or r.get("category") == "harness"
                )
                if study_timing and ok and len(study_timing["per_run_mean_ms"]) == runs:
                    out[r["function"]][r["case"]] = study_timing["mean_ms"]
            return out

        old, new = means(t4), means(a100)
        speedups = []
        for function in set(old) & set(new):
            shared = set(old[function]) & set(new[function])
            if shared:
                logs = [math.log(old[function][c] / new[function][c]) for c in shared]
                speedups.append(math.exp(statistics.fmean(logs)))
        assert row[4] == len(speedups)
        faster = sum(1 for s in speedups if s >= 1.5) / len(speedups)
        assert row[5] == f"{faster:.1%}"


@pytest.mark.skipif(not VERSIONS.exists(), reason="no paper/current reference runs committed")
def test_versions_count_what_became_portable_and_what_broke() -> None:
    cells = load_runs([VERSIONS])
    tables = {t.name: t for t in version_tables(cells)}
    assert tables, "the reference runs hold no two profiles of one cell"
    for table in tables.values():
        old_name, new_name = table.headers[1], table.headers[2]
        framework = table.name.split("-")[1]
        by_profile = {c.profile: c for c in cells if c.framework == framework}
        outcome = {}
        for profile in (old_name, new_name):
            per: dict[tuple[str, str], list[str]] = defaultdict(list)
            for r in _raw(by_profile[profile]):
                per[(r["function"], r["study_test_file"])].append(r["outcome"])
            outcome[profile] = {
                f: (
                    ("partial" if "pass" in v else "complete")
                    if "fail" in v
                    else ("pass" if "pass" in v else "untested")
                )
                for f, v in per.items()
            }
        became = sum(
            1
            for f, now in outcome[new_name].items()
            if now == "pass" and outcome[old_name].get(f, "absent") != "pass"
        )
        broke = sum(
            1
            for f, was in outcome[old_name].items()
            if was == "pass" and outcome[new_name].get(f) in ("partial", "complete")
        )
        assert f"became portable: {became}" in table.note
        assert f"broke: {broke}" in table.note


def test_the_studys_own_data_gives_its_headline_shares(study: list[Cell]) -> None:
    # The paper: 81.4% of PyTorch functions are more than 10x slower on TPU than on GPU, and
    # 91.8% of JAX functions faster; both are shares of the rows of its Tables 5 and 7.
    table, _ = published_latency(study)
    ratio = table.headers.index("recount tpu/gpu")
    torch = [float(r[ratio]) for r in table.rows if r[0] == "Table 5"]
    jax = [float(r[ratio]) for r in table.rows if r[0] == "Table 7"]
    assert f"{sum(1 for x in torch if x > 10) / len(torch):.1%}" == "81.4%"
    assert f"{sum(1 for x in jax if x < 1) / len(jax):.1%}" == "91.8%"
    assert "35/43 (81.4%)" in table.note and "56/61 (91.8%)" in table.note
