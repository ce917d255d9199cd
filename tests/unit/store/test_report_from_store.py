"""``portbench report --store``: the same report as from the run directories."""

from __future__ import annotations

import filecmp
from pathlib import Path

from conftest import ROOT
from rich.console import Console

from portbench.cli import main
from portbench.report.commands import build_report
from portbench.store.cells import load_store_cells

from .cells import CaseSpec, CellSpec, write_cell

FIXTURES = ROOT / "tests" / "data" / "cells"


def test_the_report_from_the_store_is_the_report_from_the_run_directories(tmp_path: Path) -> None:
    runs = [
        FIXTURES / name for name in ("record2-plan2", "record3-plan3", "record4-plan4", "census3")
    ]
    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), *map(str, runs)]) == 0
    console = Console(file=None, width=100, color_system=None, quiet=True)
    build_report(list(runs), tmp_path / "dirs", console, with_study=False)
    build_report([], tmp_path / "store", console, with_study=False, loaded=load_store_cells(store))
    tables = sorted(p.name for p in (tmp_path / "dirs" / "tables").iterdir())
    assert tables == sorted(p.name for p in (tmp_path / "store" / "tables").iterdir())
    _, differ, errors = filecmp.cmpfiles(
        tmp_path / "dirs" / "tables", tmp_path / "store" / "tables", tables, shallow=False
    )
    # Only the provenance table names where a cell was read: a folder here, run/cell there.
    assert sorted({name.split(".")[0] for name in differ}) == ["provenance"] and not errors


def test_a_tampered_cell_is_not_in_the_report_from_the_store(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_cell(runs, CellSpec("torch", "cpu", "2.13.0", [CaseSpec("torch.add::a")]), "good")
    write_cell(
        runs,
        CellSpec(
            "torch", "cpu", "2.13.0", [CaseSpec("torch.add::a")], host="x", tampered="rewritten"
        ),
        "bad",
    )
    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), str(runs)]) == 0
    cells = load_store_cells(store)
    assert [str(c.path) for c in cells] == ["good/torch-cpu-current"]


def test_a_query_narrowed_to_a_framework_and_its_functions(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_cell(
        runs,
        CellSpec("torch", "cpu", "2.13.0", [CaseSpec("torch.add::a"), CaseSpec("torch.sub::a")]),
        "t",
    )
    write_cell(runs, CellSpec("jax", "cpu", "0.6.2", [CaseSpec("jax.numpy.add::a")]), "j")
    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), str(runs)]) == 0
    (cell,) = load_store_cells(store, "torch", ["torch.sub"])
    assert cell.cell_id == "torch/cpu/current" and [r.case for r in cell.records] == [
        "torch.sub::a"
    ]
    assert len(load_store_cells(store)) == 2
