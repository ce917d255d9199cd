"""``portbench mutate`` end to end on a real JAX cell (host backend): a good check kills the
value mutants, a weak one lets them survive and is listed, a case that ignores its output
is counted apart; the mutation run never writes into a cell's results and ingest refuses
it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import project_with_cases, runner_env

pytest.importorskip("jax")

CASES = """
import numpy as np
from portbench_runner.api import case

X = np.array([1.0, -2.0, 3.0, 0.5], dtype="float32")


def _add(ctx):
    import jax.numpy as jnp

    x = ctx.put(X)
    return ctx.measure(jnp.add, x, x)


@case("good")
def good(ctx):
    out = _add(ctx)
    ctx.check(str(out.dtype) == "float32", f"dtype {out.dtype}")
    ctx.check_close(out, 2 * X, dtype="float32")


@case("weak")
def weak(ctx):
    out = _add(ctx)
    ctx.check(out is not None, "no output")


@case("unused")
def unused(ctx):
    import jax.numpy as jnp

    x = ctx.put(X)
    ctx.measure(jnp.add, x, x)
"""
FUNCTION = "probe.sandbox"


def _portbench(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**runner_env(), "PORTBENCH_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "portbench.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def mutated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    home = project_with_cases(tmp_path_factory.mktemp("mutate"), "jax", CASES)
    proc = _portbench(
        home, "mutate", "--framework", "jax", "--profile", "host", "--backend", "host"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run_dir,) = (home / "results" / "mutation").iterdir()
    return home, run_dir


def _statuses(run_dir: Path) -> dict[tuple[str, str], str]:
    lines = (run_dir / "jax-cpu-host" / "results.jsonl").read_text().splitlines()
    out = {}
    for record in map(json.loads, lines):
        assert record["kind"] == "mutant"
        kind = record["mutant"]["kind"]
        out[(record["case_name"], kind)] = record["outcome"]
    return out


def test_a_good_check_kills_every_value_mutant(mutated: tuple[Path, Path]) -> None:
    _, run_dir = mutated
    status = _statuses(run_dir)
    assert status[("good", "none")] == "pass"
    for kind in ("float", "dtype", "shape", "nan", "raise"):
        assert status[("good", kind)] == "fail", kind
    # No integer or boolean in a float32 output: off_by_one does not apply.
    assert status[("good", "off_by_one")] == "skip"


def test_a_weak_check_lets_mutants_survive_and_lists_them(mutated: tuple[Path, Path]) -> None:
    _, run_dir = mutated
    status = _statuses(run_dir)
    for kind in ("float", "dtype", "shape", "nan"):
        assert status[("weak", kind)] == "pass", kind
    assert status[("weak", "raise")] == "fail"
    rates = json.loads((run_dir / "kill-rates.json").read_text())
    survivors = {(s["case"], s["kind"]) for s in rates["survivors"]}
    assert survivors == {(f"{FUNCTION}::weak", k) for k in ("float", "dtype", "shape", "nan")}
    assert f"{FUNCTION}::weak" in (run_dir / "kill-rates.md").read_text()


def test_an_unused_result_is_counted_apart(mutated: tuple[Path, Path]) -> None:
    _, run_dir = mutated
    status = _statuses(run_dir)
    for kind in ("float", "dtype", "shape", "nan"):
        assert status[("unused", kind)] == "skip"
    rates = json.loads((run_dir / "kill-rates.json").read_text())
    (apart,) = rates["apart"]
    assert apart["cases"] == 1 and "not used" in apart["reason"]
    float_row = next(r for r in rates["by_kind"] if r["kind"] == "float")
    assert (float_row["killed"], float_row["survived"], float_row["apart"]) == (1, 1, 1)


def test_a_mutation_run_never_writes_into_a_cells_results(
    mutated: tuple[Path, Path], tmp_path: Path
) -> None:
    home, run_dir = mutated
    bench = _portbench(
        home, "bench", "--framework", "jax", "--accelerator", "cpu", "--profile", "host",
        "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert bench.returncode == 0, bench.stdout + bench.stderr
    results = tmp_path / "run" / "jax-cpu-host" / "results.jsonl"
    before = results.read_bytes()
    records = [json.loads(line) for line in before.decode().splitlines()]
    assert sorted(r["case_name"] for r in records) == ["good", "unused", "weak"]
    assert {r["kind"] for r in records} == {"case"}
    # The mutation plan, run into the cell's own directory, is refused and writes nothing.
    session = subprocess.run(
        [
            sys.executable, "-m", "portbench.session",
            "--plan", str(run_dir / "jax-cpu-host" / "plan.json"),
            "--cell-dir", str(results.parent),
        ],
        capture_output=True, text=True, env=runner_env(), timeout=300, check=False,
    )  # fmt: skip
    assert session.returncode != 0
    assert "never share a cell directory" in session.stdout + session.stderr
    assert results.read_bytes() == before


def test_ingest_refuses_a_mutation_run(mutated: tuple[Path, Path], tmp_path: Path) -> None:
    home, run_dir = mutated
    store = tmp_path / "store.duckdb"
    proc = _portbench(home, "ingest", str(run_dir), "--store", str(store))
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.strip().splitlines() if line]
    assert len(lines) == 1 and "is a mutation run" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    # Ingesting all of results/ (a cell's run beside it) keeps it out: no mutant record
    # reaches the store, the cell's own records do.
    bench = _portbench(
        home, "bench", "--framework", "jax", "--accelerator", "cpu", "--profile", "host",
        "--run-dir", str(home / "results" / "ordinary"),
    )  # fmt: skip
    assert bench.returncode == 0, bench.stdout + bench.stderr
    every = _portbench(home, "ingest", str(home / "results"), "--store", str(store))
    assert every.returncode == 0, every.stdout + every.stderr
    import duckdb

    with duckdb.connect(str(store), read_only=True) as con:
        count = con.execute("SELECT count(*) FROM records").fetchone()
    assert count is not None and count[0] == 3
    # The report counts the cell's records only, and shows the kill rates in a table of
    # their own.
    report = _portbench(home, "report", "--no-study", "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stdout + report.stderr
    assert "1 portbench cells" in report.stdout
    table = json.loads((tmp_path / "report" / "tables" / "mutation.json").read_text())
    text = json.dumps(table)
    assert '"float"' in text and '"raise"' in text and "4 survivors" in text
