"""The timing floor: what warm timing costs per case, this runner against a baseline's, in
one run with the two alternating (so drift on a shared machine hits both alike).

- per case: the scaling benchmark's case (``sum(range(1000))``, timing on) in cells of
  ``SIZES`` cases; the slope of wall time over cases is the cost per case (16.7 ms at
  4b53361, where a fixed 10 ms warm-up and a floor of ten 0.5 ms blocks ran per case);
- fidelity: the CPU fidelity rows (benchmarks/fidelity_cpu.py) timed by both runners'
  ``time_call`` beside the frameworks' own timers, and how many of them agree within 5 %.

The baseline is another commit's runner (default 4b53361, before the settle warm-up),
unpacked with ``git archive``; the host side is this checkout's for both.

    python benchmarks/timing_floor.py [--baseline COMMIT] [--rounds N] [--no-fidelity] [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from _common import ROOT, Row, check_exit, read_records, spread, supervise, write_cell
from scaling import BODY

DEFAULT_BASELINE = "4b53361"
SIZES = (30, 90)
AGREE = 0.05


def baseline_home(commit: str) -> Path:
    """A folder holding ``commit``'s runners/ (and this checkout's manifests and images)."""
    home = Path(tempfile.mkdtemp(prefix=f"portbench-baseline-{commit}-"))
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "runners"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(home)], input=archive.stdout, check=True)
    for name in ("manifests", "images"):
        (home / name).symlink_to(ROOT / name)
    return home


def _cell_wall(n: int, home: Path | None) -> float:
    root = Path(tempfile.mkdtemp(prefix="portbench-floor-"))
    cell_dir = root / "run"
    plan = write_cell(root, n, BODY)
    start = time.perf_counter()
    proc = supervise(plan, cell_dir, home=home)
    check_exit(proc, cell_dir)
    wall = time.perf_counter() - start
    read_records(cell_dir, n)
    return wall


def per_case(homes: dict[str, Path | None], rounds: int) -> list[Row]:
    slopes: dict[str, list[float]] = {name: [] for name in homes}
    for number in range(rounds):
        order = list(homes) if number % 2 == 0 else list(reversed(homes))
        for name in order:
            small, large = (_cell_wall(n, homes[name]) for n in SIZES)
            slopes[name].append((large - small) / (SIZES[1] - SIZES[0]) * 1e3)
    rows = []
    base = statistics.median(slopes["baseline"])
    for name, values in slopes.items():
        value = statistics.median(values)
        rows.append(
            Row(
                "timing-floor",
                f"{name}: ms per case, timing on",
                value,
                "ms",
                reference=base,
                ratio=value / base,
                note=f"{rounds} rounds alternating; spread {spread(values):.0%}",
            )
        )
    return rows


def _load_timing(runners: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, runners / "portbench_runner" / "timing.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fidelity(homes: dict[str, Path | None], rounds: int) -> list[Row]:
    import fidelity_cpu
    import numpy as np

    from portbench_runner.adapters import make_adapter

    timers = {
        name: _load_timing((home or ROOT) / "runners", f"timing_{name}").time_call
        for name, home in homes.items()
    }
    rows: list[Row] = []
    within = dict.fromkeys(homes, 0)
    total = 0
    for framework in ("torch", "jax", "tensorflow"):
        if importlib.util.find_spec(framework) is None:
            continue
        adapter = make_adapter(framework, "cpu", fidelity_cpu.CPU)
        adapter.load()
        for op, fn, args in fidelity_cpu._ops(framework, np.random.default_rng(0)):
            ours: dict[str, list[float]] = {name: [] for name in homes}
            theirs = []
            for number in range(rounds):
                order = list(timers) if number % 2 == 0 else list(reversed(timers))
                for name in order:
                    _, timing = timers[name](lambda fn=fn, args=args: fn(*args), adapter.sync)
                    ours[name].append(timing["warm"]["median_ms"])
                theirs.append(fidelity_cpu._reference_ms(framework, fn, args))
            reference = statistics.median(theirs)
            total += 1
            for name, values in ours.items():
                ratio = statistics.median(values) / reference
                within[name] += abs(ratio - 1.0) <= AGREE
                rows.append(
                    Row(
                        "timing-floor",
                        f"{name}: {framework}: {op}",
                        statistics.median(values),
                        "ms",
                        reference=reference,
                        ratio=ratio,
                        note=f"spread ours {spread(values):.0%}, reference {spread(theirs):.0%}",
                    )
                )
    for name, count in within.items():
        rows.append(
            Row(
                "timing-floor",
                f"{name}: rows within 5% of the reference",
                count,
                "rows",
                note=f"of {total}",
            )
        )
    return rows


def run(baseline: str = DEFAULT_BASELINE, rounds: int = 5, with_fidelity: bool = True) -> list[Row]:
    home = baseline_home(baseline)
    homes: dict[str, Path | None] = {"this": None, "baseline": home}
    try:
        rows = per_case(homes, rounds)
        if with_fidelity:
            rows += fidelity(homes, max(1, rounds // 2 + 1))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-fidelity", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = run(args.baseline, args.rounds, not args.no_fidelity)
    for row in rows:
        ratio = f"  x{row.ratio:.2f}" if row.ratio is not None else ""
        print(f"{row.item:<55} {row.value:10.3f} {row.unit:<4}{ratio}  {row.note}")
    if args.json:
        args.json.write_text(json.dumps([r.to_json() for r in rows], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
