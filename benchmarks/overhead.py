"""Harness overhead: cell wall time minus time inside measured calls, per case, with worker
start-up (and framework import) separated; beside the study's harness style (pytest, a
timing fixture, results written at session end, pytest-json-report) on the same cases."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Row, run_cell

TRIVIAL = "    ctx.measure(abs, -1, warm=False)"
REAL_IMPORTS = "import numpy as np"
REAL = """    import jax.numpy as jnp
    x = ctx.put(np.ones((64, 64), dtype="float32"))
    out = ctx.measure(jnp.matmul, x, x, warm=False)
    ctx.check_close(out, np.full((64, 64), 64.0), dtype="float32")"""

STUDY_STYLE = """
import json, time
import pytest

TIMES = {{}}


@pytest.fixture
def timer(request):
    def timed(fn, *args):
        start = time.perf_counter()
        out = fn(*args)
        TIMES[request.node.name] = time.perf_counter() - start
        return out
    return timed


@pytest.fixture(scope="session", autouse=True)
def write_at_end():
    yield
    with open("study_times.json", "w") as handle:
        json.dump(TIMES, handle)


@pytest.mark.parametrize("i", range({n}))
def test_case(timer, i):
    assert timer(abs, -1) == 1
"""


def portbench_overhead(
    n: int, body: str, framework: str, imports: str = ""
) -> tuple[float, float, float]:
    """(per-case overhead ms after start-up, start-up s, wall s) of one generated cell.

    Start-up is launch to the first case's start (interpreter, framework import, worker
    spawn); the rest of the wall time, less the time inside measured calls, is harness cost,
    the host's per-record fsync and its final writes included.
    """
    cell = run_cell(n, body, framework, imports)
    startup = cell.first_case_s - cell.launched
    inside = sum(r.timing.cold_ms for r in cell.records if r.timing) / 1e3
    return (cell.ended - cell.first_case_s - inside) / n * 1e3, startup, cell.wall_s


def study_style_overhead(n: int) -> tuple[float, float]:
    """(per-case overhead ms, wall s) of the study's pytest harness on n trivial cases."""
    folder = Path(tempfile.mkdtemp(prefix="portbench-study-"))
    (folder / "test_study.py").write_text(STUDY_STYLE.format(n=n))
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--json-report",
            "--json-report-file=report.json",
            "test_study.py",
        ],
        cwd=folder,
        capture_output=True,
        check=True,
    )
    wall = time.perf_counter() - start
    inside = sum(json.loads((folder / "study_times.json").read_text()).values())
    return (wall - inside) / n * 1e3, wall


def run(quick: bool = False) -> list[Row]:
    import importlib.util

    n = 100 if quick else 500
    rows = []
    for repeat in (1, 2):  # the same benchmark twice: the spread says what is noise
        ours, startup, wall = portbench_overhead(n, TRIVIAL, "python")
        theirs, their_wall = study_style_overhead(n)
        rows.append(
            Row(
                "overhead",
                f"{n} trivial cases, per case (run {repeat})",
                ours,
                "ms",
                reference=theirs,
                ratio=ours / theirs,
                note=f"start-up {startup:.2f} s, wall {wall:.1f} s; study style wall {their_wall:.1f} s",
            )
        )
    if importlib.util.find_spec("jax") is not None:
        m = 20 if quick else 50
        ours, startup, wall = portbench_overhead(m, REAL, "jax", REAL_IMPORTS)
        rows.append(
            Row(
                "overhead",
                f"{m} real JAX cases, per case",
                ours,
                "ms",
                note=f"start-up incl. jax import {startup:.2f} s, wall {wall:.1f} s",
            )
        )
    return rows
