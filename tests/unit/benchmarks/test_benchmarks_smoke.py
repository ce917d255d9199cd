"""The self-benchmarks run and report every figure with a unit (no timing is asserted)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_quick_overhead_and_scaling_report_figures(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "overhead",
            "scaling",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(out.read_text())
    assert document["kind"] == "benchmarks" and document["quick"] is True
    items = {row["item"]: row for row in document["rows"]}
    assert any(item.startswith("100 trivial cases") for item in items)
    assert "linear fit: ms per case" in items
    for row in document["rows"]:
        assert row["unit"] in ("ms", "s", "ns")
        assert not math.isnan(row["value"]) and row["value"] >= 0
    assert "portbench self-benchmarks" in proc.stdout
