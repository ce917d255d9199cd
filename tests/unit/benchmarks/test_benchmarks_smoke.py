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


def test_aa_counts_flags_raw_flags_and_missing_verdicts_over_timed_cases() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import aa

    def case(verdict: str, ratio: float | None, p: float | None) -> dict[str, object]:
        return {"verdict": verdict, "ratio": ratio, "p_value": p}

    document = {
        "cells": [
            {
                "cases": [
                    case("slower", 1.5, 0.001),  # flagged
                    case("same", 1.3, 0.01),  # raw p would flag it; the correction did not
                    case("same", 1.01, 0.001),  # within the minimum ratio
                    case("too few", 2.0, None),  # no verdict
                    case("none", None, None),  # not timed on both: not counted
                ]
            }
        ]
    }
    shares = aa._shares(document, alpha=0.05, slower=0.10)
    assert shares == {"timed": 4, "flagged": 0.25, "raw": 0.5, "no_verdict": 0.25}
