"""Run portbench's self-benchmarks and print every figure as one table (and as JSON).

    python benchmarks/run.py [--quick] [--only fidelity overhead fault scaling images] [--json OUT]
    python benchmarks/run.py --only matrix venv     # long: whole CPU cells, venv builds
    python benchmarks/run.py --only cluster         # a local Ray cluster (needs portbench[ray])
    python benchmarks/run.py --only store           # the store and scoreboard (a synthetic million)
    python benchmarks/run.py --only ab --baseline 4b53361   # per-case overhead, this vs a commit
    python benchmarks/run.py --only floor           # this runner's timing cost against 4b53361's
    python benchmarks/run.py --only scan            # portbench scan on the transformers sdist
    python benchmarks/run.py --only aa              # A/A: how often compare flags an unchanged plan
    python benchmarks/run.py --only predict         # predicted cells: JAX x3 targets, torch_xla

Cold image builds are measured separately (`portbench images build`), not here.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row

BENCHMARKS = ("fidelity", "overhead", "fault", "scaling", "images")
#: Long ones, run only when named (--only): they build venvs or run whole CPU cells.
OPT_IN = ("venv", "matrix", "cluster", "ab", "store", "floor", "scan", "aa", "predict")


def machine() -> dict[str, object]:
    import os

    from portbench_runner.envinfo import cpu_facts, installed_packages

    packages = installed_packages()
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_facts(),
        "load_average": os.getloadavg(),
        "frameworks": {
            k: packages.get(k)
            for k in ("torch", "jax", "jaxlib", "tensorflow", "tensorflow-cpu", "numpy")
        },
    }


def collect(names: list[str], quick: bool, baseline: str = "4b53361") -> list[Row]:
    rows: list[Row] = []
    if "fidelity" in names:
        import fidelity_cpu

        rows += fidelity_cpu.run(rounds=1 if quick else 3)
    if "overhead" in names:
        import overhead

        rows += overhead.run(quick)
    if "fault" in names:
        import fault_cost

        rows += fault_cost.run()
    if "scaling" in names:
        import scaling

        rows += scaling.run(quick)
    if "images" in names:
        import images

        rows += images.run()
    if "venv" in names:
        import venv_build

        rows += venv_build.run()
    if "matrix" in names:
        import matrix_timing

        rows += matrix_timing.rows(matrix_timing.measure())
    if "aa" in names:
        import aa

        rows += aa.rows(aa.measure(aa.parse([] if not quick else ["--runs", "2"])))
    if "store" in names:
        import store_bench

        rows += store_bench.run(quick)
    if "floor" in names:
        import timing_floor

        rows += timing_floor.run(rounds=3 if quick else 5)
    if "predict" in names:
        import predict_timing

        rows += predict_timing.run()
    if "cluster" in names:
        import cluster_dispatch

        rows += cluster_dispatch.rows(cluster_dispatch.measure(2 if quick else 5))
    if "ab" in names:
        import overhead_ab

        rows += overhead_ab.rows(baseline, rounds=2 if quick else 5, n_cases=60 if quick else 300)
    if "scan" in names:
        import scan_speed

        rows += scan_speed.run(rounds=1 if quick else 3)
    return rows


def render(rows: list[Row]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="portbench self-benchmarks")
    for column in ("benchmark", "item", "value", "unit", "reference", "ratio", "note"):
        table.add_column(
            column, justify="right" if column in ("value", "reference", "ratio") else "left"
        )

    def fmt(value: float | None) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "-"
        return f"{value:.4g}"

    for row in rows:
        table.add_row(
            row.benchmark,
            row.item,
            fmt(row.value),
            row.unit,
            fmt(row.reference),
            fmt(row.ratio),
            row.note,
        )
    Console(width=160).print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="smaller sizes, one round (a smoke run)"
    )
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS + OPT_IN, default=list(BENCHMARKS))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--baseline", default="4b53361", help="ab: the commit this checkout is measured against"
    )
    args = parser.parse_args(argv)
    started = time.time()
    rows = collect(args.only, args.quick, args.baseline)
    render(rows)
    document = {
        "schema": 1,
        "kind": "benchmarks",
        "started_at": started,
        "wall_s": time.time() - started,
        "quick": args.quick,
        "machine": machine(),
        "rows": [row.to_json() for row in rows],
    }
    print(json.dumps(document, default=str))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(document, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
