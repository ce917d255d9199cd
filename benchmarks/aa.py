"""A/A: one plan run several times and compared with itself; how often `compare` cries wolf.

    python benchmarks/aa.py [--framework jax] [--profile host] [--functions NAME ...]
                            [--runs 3] [--load none one-core] [--json OUT] [--keep DIR]

One cell is run by `portbench bench`, then `portbench rerun` (the exact same plan: cases,
seeds, timing settings) until there are 2 x RUNS runs, taken alternately as side A and side
B, so a drift of the machine over time falls on both sides alike. Then:

- one run against one (runs 1 and 2, 3 and 4, ...: each pair compared, the shares averaged);
- RUNS against RUNS (`compare A1 A2 A3 --vs B1 B2 B3`).

For each it prints the share of timed cases flagged slower or faster (after the
Benjamini-Hochberg adjustment and the minimum ratio: the target is under 1 %), the share
that would be flagged by the raw p-value alone (p <= alpha and beyond the ratio: what the
correction removes), and the share given no verdict (too few samples), reported beside
the flagged share so that refusing verdicts cannot pass for accuracy.

Loads (``--load``): ``none`` (whatever the machine is doing: run it on a quiet machine),
``one-core`` (one process spinning on one core for the whole of the runs: a CI machine
with a noisy neighbour). Each load runs its own set of runs. The spinning process is this
script's child, limited in time, and stopped before the script ends.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, SRC, Row

LOADS = ("none", "one-core")
#: The spinning load stops by itself after this long, whatever happens to this script.
LOAD_LIMIT_S = 4 * 3600


def _portbench(*args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-m", "portbench.cli", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def _must(done: subprocess.CompletedProcess[str], what: str) -> None:
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise SystemExit(f"{what} failed (exit {done.returncode}): {' | '.join(tail)}")


def _start_load(load: str) -> subprocess.Popen[bytes] | None:
    if load == "none":
        return None
    spin = f"import time\nend = time.monotonic() + {LOAD_LIMIT_S}\nwhile time.monotonic() < end: pass\n"
    return subprocess.Popen([sys.executable, "-c", spin], start_new_session=True)


def _stop_load(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def make_runs(args: argparse.Namespace, root: Path) -> list[Path]:
    """2 x RUNS cell directories of one plan: bench once, then rerun the first cell."""
    first = root / "run1"
    bench = ["bench", "--framework", args.framework, "--accelerator", args.accelerator]
    bench += ["--profile", args.profile, "--run-dir", str(first)]
    if args.functions:
        bench += ["--functions", *args.functions]
    _must(_portbench(*bench), "portbench bench")
    cells = [p.parent for p in first.glob("*/plan.json")]
    if len(cells) != 1:
        raise SystemExit(f"{first} holds {len(cells)} cells, not one")
    runs = [cells[0]]
    for index in range(2, 2 * args.runs + 1):
        run_dir = root / f"run{index}"
        _must(_portbench("rerun", str(cells[0]), "--run-dir", str(run_dir)), "portbench rerun")
        runs.append(run_dir / cells[0].name)
    return runs


def _shares(document: dict[str, Any], alpha: float, slower: float) -> dict[str, float]:
    """Shares of the timed cases (both sides passed) flagged, flagged by raw p, no verdict."""
    flagged = raw = no_verdict = timed = 0
    for cell in document["cells"]:
        for case in cell["cases"]:
            if case["ratio"] is None:
                continue  # not timed on both sides (a failure, a skip)
            timed += 1
            flagged += case["verdict"] in ("slower", "faster")
            no_verdict += case["verdict"] == "too few"
            p, ratio = case["p_value"], case["ratio"]
            beyond = ratio > 1 + slower or ratio < 1 / (1 + slower)
            raw += p is not None and p <= alpha and beyond
    share = (lambda n: n / timed) if timed else (lambda n: float("nan"))
    return {
        "timed": timed,
        "flagged": share(flagged),
        "raw": share(raw),
        "no_verdict": share(no_verdict),
    }


def compare(
    side_a: list[Path], side_b: list[Path], out: Path, alpha: float, slower: float
) -> dict[str, float]:
    args = ["compare", *map(str, side_a), "--vs", *map(str, side_b), "--json", str(out)]
    args += ["--alpha", str(alpha), "--threshold", str(slower)]
    _must(_portbench(*args), "portbench compare")
    return _shares(json.loads(out.read_text()), alpha, slower)


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    for load in args.load:
        root = Path(tempfile.mkdtemp(prefix=f"aa-{load}-", dir=args.keep))
        spinner = _start_load(load)
        started = time.monotonic()
        try:
            runs = make_runs(args, root)
        finally:
            _stop_load(spinner)
        side_a, side_b = runs[0::2], runs[1::2]
        singles = [
            compare([a], [b], root / f"one-{i}.json", args.alpha, args.threshold)
            for i, (a, b) in enumerate(zip(side_a, side_b, strict=True))
        ]
        several = compare(side_a, side_b, root / "several.json", args.alpha, args.threshold)
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
        mean = {
            k: sum(s[k] for s in singles) / len(singles) for k in ("flagged", "raw", "no_verdict")
        }
        results.append(
            {
                "load": load,
                "runs_a_side": args.runs,
                "timed_cases": several["timed"],
                "one_vs_one": {**mean, "pairs": len(singles)},
                "several": several,
                "wall_s": round(time.monotonic() - started, 1),
                "folder": str(root) if args.keep is not None else None,
            }
        )
    return results


def rows(results: list[dict[str, Any]]) -> list[Row]:
    out = []
    for result in results:
        for label, figures in (
            ("1 vs 1", result["one_vs_one"]),
            (f"{result['runs_a_side']} vs {result['runs_a_side']}", result["several"]),
        ):
            note = f"load {result['load']}, {result['timed_cases']} timed cases"
            out.append(Row("aa", f"{label}: flagged", 100 * figures["flagged"], "%", note=note))
            out.append(
                Row("aa", f"{label}: flagged by raw p", 100 * figures["raw"], "%", note=note)
            )
            out.append(
                Row("aa", f"{label}: no verdict", 100 * figures["no_verdict"], "%", note=note)
            )
    return out


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", default="jax")
    parser.add_argument("--accelerator", default="cpu")
    parser.add_argument("--profile", default="host")
    parser.add_argument("--functions", nargs="+", help="a subset (default: the whole manifest)")
    parser.add_argument("--runs", type=int, default=3, help="runs a side (default 3: 6 runs)")
    parser.add_argument("--load", nargs="+", choices=LOADS, default=list(LOADS))
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--threshold", type=float, default=0.10)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--keep", type=Path, help="make the runs under this folder (kept)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    results = measure(args)
    from run import render

    render(rows(results))
    document = {"schema": 1, "kind": "aa", "args": vars(args), "results": results}
    print(json.dumps(document, default=str))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(document, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
