"""The report over real runs: counts checked against an independent count, damaged runs
reported rather than fatal, every output written."""

from __future__ import annotations

import io
import json
import shutil
from collections import defaultdict
from pathlib import Path

from conftest import ROOT, make_plan, run_supervisor
from rich.console import Console

from portbench.report.commands import build_report
from portbench.report.load import load_runs
from portbench.report.published import portbench_beside, published_outcomes
from portbench.report.tables import portability

REFERENCE = ROOT / "results" / "reference" / "20261122-h100-host"

FAULTS = """
import ctypes
from portbench_runner.api import case

@case("ok")
def ok(ctx):
    ctx.measure(abs, -1)

@case("crash")
def crash(ctx):
    ctx.measure(ctypes.string_at, 0)
"""


def _independent_counts(cell_dir: Path) -> dict[str, int]:
    """Function outcomes counted straight from the files, without portbench's code."""
    plan = json.loads((cell_dir / "plan.json").read_text())
    outcomes: dict[tuple[str, str], list[str]] = {
        (f["function"], f["study_test_file"]): [] for f in plan["functions"]
    }
    for line in (cell_dir / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        outcomes[(r["function"], r["study_test_file"])].append(r["outcome"])
    counts: dict[str, int] = defaultdict(int)
    for values in outcomes.values():
        if "fail" in values:
            counts["partial" if "pass" in values else "complete"] += 1
        else:
            counts["pass" if "pass" in values else "untested"] += 1
    return counts


def test_portability_matches_an_independent_count() -> None:
    cells = load_runs([REFERENCE])
    table = portability(cells)
    headers = table.headers
    for row in table.rows:
        cell = next(c for c in cells if c.cell_id == row[0])
        expected = _independent_counts(cell.path)
        for outcome in ("pass", "partial", "complete", "untested"):
            assert row[headers.index(outcome)] == expected[outcome], (row[0], outcome)


def test_published_numbers_stand_beside_the_reproduction() -> None:
    cells = load_runs([REFERENCE])
    beside = portbench_beside(cells)
    torch_gpu = [r for r in beside.rows if r[:2] == ["torch", "gpu"]]
    assert torch_gpu and torch_gpu[0][2] == "58/2/3" and torch_gpu[0][3] == "torch/gpu-h100/host"
    # No study cells among these runs: each printed row stays, saying it has no recount.
    table = published_outcomes(cells)
    jax_tpu = next(r for r in table.rows if r[:3] == ["Table 8", "jax", "tpu"])
    assert jax_tpu[3:6] == ["61/0/2", "-", "-"] and "not imported" in jax_tpu[-1]


def test_report_over_damaged_runs_completes_and_says_what_is_missing(tmp_path: Path) -> None:
    run = tmp_path / "run"
    plan = make_plan(tmp_path / "cell", {"faults": FAULTS})
    assert run_supervisor(plan, run / "python-cpu-host").returncode == 0
    shutil.copy(plan, run / "python-cpu-host" / "plan.json")
    results = run / "python-cpu-host" / "results.jsonl"
    results.write_text(results.read_text() + '{"schema": 1, "kind": "case", "cas')
    missing = run / "jax-cpu-current"
    missing.mkdir()
    (missing / "plan.json").write_text(
        (
            ROOT
            / "results"
            / "reference"
            / "20261122-h100-host"
            / "jax-gpu-h100-host"
            / "plan.json"
        ).read_text()
    )
    out = io.StringIO()
    written = build_report(
        [run],
        tmp_path / "report",
        Console(file=out, width=200, color_system=None),
        with_study=False,
    )
    text = out.getvalue()
    assert "1 unreadable result lines" in text
    assert "jax/gpu-h100/host (failed)" in text  # the planned cell that ran nothing
    assert (tmp_path / "report" / "index.html").exists()
    names = {p.name for p in written}
    assert {
        "portability.md",
        "portability.tex",
        "portability.csv",
        "portability.json",
        "failures.csv",
    } <= names
    failures = json.loads((tmp_path / "report" / "tables" / "failures.json").read_text())
    assert ["python/cpu/host", "crash", "call", 1] in failures["rows"]


def test_strata_rates_count_partial_and_complete_functions() -> None:
    from portbench.report.tables import strata

    cells = load_runs([REFERENCE])
    table = strata(cells)
    for cell in cells:
        rows = {r[1]: r for r in table.rows if r[0] == cell.cell_id}
        expected = _independent_counts(cell.path)
        assert rows["all"][2] == sum(expected.values())
        assert rows["all"][3] == expected["partial"] + expected["complete"]
        assert sum(r[2] for s, r in rows.items() if s != "all") == rows["all"][2]


def test_html_navigation_is_grouped_by_section(tmp_path: Path) -> None:
    from portbench.report.render import SECTIONS, write_html
    from portbench.report.tables import Table

    names = ["portability", "published-latency", "latency-jax-host-cpu-vs-gpu-h100", "provenance"]
    tables = [Table(n, n, ["a"], [[1]]) for n in names]
    page = write_html(tables, tmp_path, "summary").read_text()
    nav = page[page.index("<nav>") : page.index("</nav>")]
    lines = nav.split("<div>")[1:]
    by_section = {line.split("</b>")[0].removeprefix("<b>"): line for line in lines}
    assert list(by_section) == [s for s, _ in SECTIONS if s in by_section]
    assert "published-latency" in by_section["The study"]
    assert "latency-jax-host-cpu-vs-gpu-h100" in by_section["Latency"]
    assert "portability" in by_section["Portability"]
