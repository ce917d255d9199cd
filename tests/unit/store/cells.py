"""Helpers of the store's and the scoreboard's tests: synthetic cells (benchmarks/store_data.py,
written through the contract's types) and a store's row counts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

from store_data import CaseSpec, CellSpec, write_cell

__all__ = ["CaseSpec", "CellSpec", "counts", "portbench", "write_cell"]

TABLES = ("ingests", "cells", "planned", "sessions", "records")


def counts(store: Path) -> dict[str, int]:
    """Rows per table (the store opened read-only, as another reader would)."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}  # type: ignore[index]
    finally:
        con.close()


def portbench(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in its own process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "runners")])
    return subprocess.run(
        [sys.executable, "-m", "portbench", *args],
        check=False, capture_output=True, text=True, env=env, cwd=cwd, timeout=600,
    )  # fmt: skip
