"""Adaptive against fixed warm timing over the real CPU cells of this machine.

    python benchmarks/matrix_timing.py [--json OUT] [--backend docker|venv]

One run holds three passes over the six CPU cells (torch paper and current, TensorFlow paper
and current, JAX paper-nearest and current; one ``portbench matrix`` per profile): fixed,
adaptive, fixed again. It prints

- wall time of the warm phase (``timing.warm_s`` summed over cases) and of whole cells
  (``matrix.json``'s ``cell_wall_s``), fixed and adaptive, and the speed-up;
- the ceiling on the whole-cell speed-up: what a cell spends outside warm sampling (cold
  calls, framework import, worker start) stays whatever the warm phase does;
- agreement of warm medians within +-5 %: fixed against fixed (the noise floor), then
  adaptive against the first fixed pass, over the cases timed in both;
- how adaptive runs stopped (converged / capped) and how many were marked noisy.

Needs the six cells' images (or venvs) built; minutes per pass.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from portbench.results import read_results  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Row  # noqa: E402

MATRICES = (
    ("current", ("torch", "tensorflow", "jax")),
    ("paper", ("torch", "tensorflow")),
    ("paper-nearest", ("jax",)),
)
AGREE = 0.05


def run_pass(mode: str, backend: str, root: Path) -> dict[str, Any]:
    """One ``portbench matrix`` per profile with ``--timing mode``; per cell: wall and medians."""
    cells: dict[str, Any] = {}
    for profile, frameworks in MATRICES:
        run_dir = root / f"{mode}-{profile}-{time.time_ns()}"
        command = [sys.executable, "-m", "portbench.cli", "matrix", "--profile", profile]
        command += ["--frameworks", *frameworks, "--backend", backend, "--timing", mode]
        done = subprocess.run(
            [*command, "--run-dir", str(run_dir)], capture_output=True, text=True, check=False
        )
        if done.returncode not in (0, 1):
            print(done.stderr[-2000:], file=sys.stderr)
        cells.update(collect(run_dir))
    return cells


def collect(run_dir: Path) -> dict[str, Any]:
    """Per completed cell of one matrix run: wall times, warm-phase seconds, medians."""
    cells: dict[str, Any] = {}
    document = json.loads((run_dir / "matrix.json").read_text())
    for row in document["cells"]:
        if row["status"] != "complete":
            if row["status"] == "failed":
                print(f"{row['cell']} failed: {row.get('reason')}", file=sys.stderr)
            continue
        folder = run_dir / row["cell"].replace("/", "-")
        records = read_results(folder / "results.jsonl").records
        timed = [r.timing for r in records if r.timing is not None]
        warm = [t.warm for t in timed if t.warm is not None]
        cells[row["cell"]] = {
            "cell_wall_s": row["cell_wall_s"],
            "warm_s": sum(t.warm_s or 0.0 for t in timed),
            "medians": {
                r.case: r.timing.warm.median_ms
                for r in records
                if r.timing and r.timing.warm and r.timing.warm.median_ms > 0
            },
            "stopped_by": dict(Counter(w.stopped_by or "?" for w in warm)),
            "noisy": sum(1 for w in warm if w.noisy),
            "cases_timed": len(warm),
        }
    return cells


def collect_kept(root: Path) -> dict[str, dict[str, Any]]:
    """The three passes of a run kept with --keep, from its run directories (in time order:
    the first fixed matrices are the first pass, the later ones the pass repeated)."""
    runs = sorted(
        root.glob("*-*-*/matrix.json"), key=lambda p: int(p.parent.name.rsplit("-", 1)[1])
    )
    fixed = [p.parent for p in runs if p.parent.name.startswith("fixed-")]
    adaptive = [p.parent for p in runs if p.parent.name.startswith("adaptive-")]
    half = len(fixed) // 2
    passes: dict[str, dict[str, Any]] = {"fixed": {}, "adaptive": {}, "fixed-again": {}}
    for name, dirs in (
        ("fixed", fixed[:half]),
        ("adaptive", adaptive),
        ("fixed-again", fixed[half:]),
    ):
        for run_dir in dirs:
            passes[name].update(collect(run_dir))
    return passes


def agreement(a: dict[str, Any], b: dict[str, Any]) -> tuple[int, int]:
    """(cases whose warm medians agree within +-5 %, cases timed in both)."""
    agree = total = 0
    for cell, left in a.items():
        right = b.get(cell)
        if right is None:
            continue
        for case, median in left["medians"].items():
            other = right["medians"].get(case)
            if other is None:
                continue
            total += 1
            agree += abs(other / median - 1.0) <= AGREE
    return agree, total


def summarize(passes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    fixed, adaptive, again = passes["fixed"], passes["adaptive"], passes["fixed-again"]
    common = sorted(set(fixed) & set(adaptive))

    def total(run: dict[str, Any], key: str) -> float:
        return sum(run[c][key] for c in common)

    warm_f, warm_a = total(fixed, "warm_s"), total(adaptive, "warm_s")
    cell_f, cell_a = total(fixed, "cell_wall_s"), total(adaptive, "cell_wall_s")
    floor_agree, floor_n = agreement(fixed, again)
    adapt_agree, adapt_n = agreement(fixed, adaptive)
    stopped: dict[str, int] = {}
    for cell in common:
        for key, count in adaptive[cell]["stopped_by"].items():
            stopped[key] = stopped.get(key, 0) + count
    return {
        "cells": common,
        "warm_s": {"fixed": warm_f, "adaptive": warm_a, "speedup": warm_f / warm_a},
        "cell_wall_s": {"fixed": cell_f, "adaptive": cell_a, "speedup": cell_f / cell_a},
        "ceiling": {"outside_warm_s": cell_f - warm_f, "speedup": cell_f / (cell_f - warm_f)},
        "noise_floor": {"agree": floor_agree, "of": floor_n, "share": floor_agree / floor_n},
        "adaptive_vs_fixed": {"agree": adapt_agree, "of": adapt_n, "share": adapt_agree / adapt_n},
        "adaptive_stopped_by": stopped,
        "adaptive_noisy": sum(adaptive[c]["noisy"] for c in common),
        "per_cell": {
            c: {
                "fixed_cell_s": fixed[c]["cell_wall_s"],
                "adaptive_cell_s": adaptive[c]["cell_wall_s"],
                "fixed_warm_s": round(fixed[c]["warm_s"], 2),
                "adaptive_warm_s": round(adaptive[c]["warm_s"], 2),
            }
            for c in common
        },
    }


def print_summary(result: dict[str, Any]) -> None:
    w, c, ceil = result["warm_s"], result["cell_wall_s"], result["ceiling"]
    print(f"cells: {', '.join(result['cells'])}")
    for cell, row in result["per_cell"].items():
        print(
            f"  {cell:28s} cell {row['fixed_cell_s']:7.1f} s -> {row['adaptive_cell_s']:7.1f} s"
            f"   warm {row['fixed_warm_s']:7.1f} s -> {row['adaptive_warm_s']:7.1f} s"
        )
    print(
        f"warm phase:  fixed {w['fixed']:.1f} s, adaptive {w['adaptive']:.1f} s: {w['speedup']:.2f}x"
    )
    print(
        f"whole cells: fixed {c['fixed']:.1f} s, adaptive {c['adaptive']:.1f} s: {c['speedup']:.2f}x"
    )
    print(
        f"ceiling: {ceil['outside_warm_s']:.1f} s of the fixed cells is outside warm sampling, "
        f"so no warm timing can make them faster than {ceil['speedup']:.2f}x"
    )
    for key, label in (
        ("noise_floor", "fixed vs fixed"),
        ("adaptive_vs_fixed", "adaptive vs fixed"),
    ):
        row = result[key]
        print(f"{label}: {row['agree']}/{row['of']} warm medians within 5% ({row['share']:.1%})")
    print(
        f"adaptive stopped by: {result['adaptive_stopped_by']}; noisy: {result['adaptive_noisy']}"
    )


def measure(backend: str = "auto", keep: Path | None = None) -> dict[str, Any]:
    """Run the three passes and summarize them (what ``nox -s perf -- --only matrix`` runs)."""
    return summarize(run_passes(backend, keep))


def rows(result: dict[str, Any]) -> list[Row]:
    """The summary as benchmark rows."""
    w, c, ceil = result["warm_s"], result["cell_wall_s"], result["ceiling"]
    out = [
        Row(
            "matrix",
            "warm phase, adaptive vs fixed",
            w["adaptive"],
            "s",
            w["fixed"],
            w["adaptive"] / w["fixed"],
        ),
        Row(
            "matrix",
            "whole cells, adaptive vs fixed",
            c["adaptive"],
            "s",
            c["fixed"],
            c["adaptive"] / c["fixed"],
        ),
        Row(
            "matrix",
            "ceiling on the whole-cell speed-up",
            ceil["speedup"],
            "x",
            note=f"{ceil['outside_warm_s']:.0f} s outside warm sampling",
        ),
    ]
    for key, label in (
        ("noise_floor", "fixed vs fixed"),
        ("adaptive_vs_fixed", "adaptive vs fixed"),
    ):
        row = result[key]
        out.append(
            Row(
                "matrix",
                f"{label}: medians within 5%",
                100 * row["share"],
                "%",
                note=f"{row['agree']} of {row['of']}",
            )
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--keep", type=Path, help="keep the runs (and each pass's data) here")
    parser.add_argument(
        "--summarize", type=Path, metavar="DIR", help="only summarize the runs kept in DIR"
    )
    args = parser.parse_args()
    started = time.time()
    passes: dict[str, dict[str, Any]] = {}
    passes = collect_kept(args.summarize) if args.summarize else run_passes(args.backend, args.keep)
    empty = [name for name, cells in passes.items() if not cells]
    if empty:
        print(f"no cell completed in pass(es) {', '.join(empty)}; see the errors above")
        return 1
    result = summarize(passes)
    result["wall_s"] = time.time() - started
    result["machine"] = {"cores": os.cpu_count(), "load_average": os.getloadavg()}
    print_summary(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


def run_passes(backend: str, keep: Path | None) -> dict[str, dict[str, Any]]:
    passes: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="portbench-matrix-bench-") as folder:
        root = keep or Path(folder)
        root.mkdir(parents=True, exist_ok=True)
        for name, mode in (("fixed", "fixed"), ("adaptive", "adaptive"), ("fixed-again", "fixed")):
            passes[name] = run_pass(mode, backend, root)
    return passes


if __name__ == "__main__":
    sys.exit(main())
