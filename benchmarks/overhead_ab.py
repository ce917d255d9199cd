"""Per-case harness overhead of two checkouts, measured in one run, alternating them.

    python benchmarks/overhead_ab.py --baseline 4b53361 [--rounds 5] [--cases 300]
    python benchmarks/overhead_ab.py --a PATH_A --b PATH_B [--rounds 5] [--json OUT]

Each measurement runs a generated cell of ``--cases`` trivial cases on the host backend with
one checkout's own code only (its plan compiler, its host session, its runner), in a fresh
process, and takes what ``overhead.py`` takes: the wall time from the first case's start to
the session's end, less the time inside measured calls, per case (the host's per-record
fsync included; start-up and framework import left out). Rounds alternate which checkout goes
first, so a machine that slows down or warms up weighs on both alike. The figure is B's median
over A's; the issue's bar is B within 5% of A.

``--baseline COMMIT`` checks COMMIT out into a temporary git worktree of this repository (B
is this checkout) and removes it afterwards. Take the real figure on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _common import Row

ROOT = Path(__file__).resolve().parent.parent

TRIVIAL = "    ctx.measure(abs, -1, warm=False)"


def _source(n_cases: int) -> str:
    decorators = "\n".join(f'@case("c{i:04d}")' for i in range(n_cases))
    return f"from portbench_runner.api import case\n\n{decorators}\ndef run(ctx):\n{TRIVIAL}\n"


def _cell(checkout: Path, n_cases: int) -> tuple[float, float, float, list[dict[str, object]]]:
    """(launched, ended, CPU seconds of the session's processes, records) of one cell."""
    from portbench.plan import PlanOptions, plan_from_case_files

    root = Path(tempfile.mkdtemp(prefix="portbench-ab-"))
    options = PlanOptions(seed=1, case_timeout_s=120.0, worker_start_s=300.0, grace_s=1.0)
    plan = plan_from_case_files(root, {"bench": _source(n_cases)}, "python", options)
    document = plan.to_json() if hasattr(plan, "to_json") else plan  # before the contract: a dict
    plan_path = root / "plan.json"
    plan_path.write_text(json.dumps(document))
    cell_dir = root / "cell"
    command = [sys.executable, "-m", "portbench.session", "--plan", str(plan_path)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    launched = time.time()
    done = subprocess.run(
        [*command, "--cell-dir", str(cell_dir)],
        env=os.environ.copy(),
        capture_output=True,
        check=False,
    )
    ended = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: the cell ended with exit {done.returncode}")
    lines = (cell_dir / "results.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    if len(records) != n_cases:
        raise SystemExit(f"{checkout}: {len(records)} of {n_cases} records")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return launched, ended, cpu, records


def measure(checkout: Path, n_cases: int) -> dict[str, float]:
    """One cell run with ``checkout``'s code alone (this function runs in a child process
    whose path holds only that checkout's ``src`` and ``runners``). Beside the wall-time
    figure, the CPU the host, supervisor and worker spent per case (a cell of one case run
    too, so that start-up cancels out): far less disturbed by a busy machine."""
    import portbench

    used = Path(portbench.__file__).resolve()
    if not used.is_relative_to(checkout.resolve()):
        raise SystemExit(f"measuring {checkout} imported {used}: another checkout's code")
    launched, ended, cpu, records = _cell(checkout, n_cases)
    _, _, cpu_one, _ = _cell(checkout, 1)
    first = min(datetime.fromisoformat(str(r["started_at"])).timestamp() for r in records)
    inside = sum(float(r["timing"]["cold_ms"]) for r in records if r.get("timing")) / 1e3  # type: ignore[index]
    return {
        "per_case_ms": (ended - first - inside) / n_cases * 1e3,
        "cpu_per_case_ms": (cpu - cpu_one) / (n_cases - 1) * 1e3,
        "startup_s": first - launched,
        "wall_s": ended - launched,
    }


def run_in(checkout: Path, n_cases: int) -> dict[str, float]:
    """:func:`measure` in a child process that sees only ``checkout``'s code."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(checkout / "src"), str(checkout / "runners")])
    env.pop("PORTBENCH_HOME", None)
    done = subprocess.run(
        [sys.executable, __file__, "--measure", str(checkout), "--cases", str(n_cases)],
        env=env,
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"measuring {checkout} failed: {done.stderr.strip()[-600:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def compare(a: Path, b: Path, rounds: int, n_cases: int) -> dict[str, object]:
    """``rounds`` measurements of each, alternating which goes first."""
    figures: dict[str, list[dict[str, float]]] = {"a": [], "b": []}
    for index in range(rounds):
        order = (("a", a), ("b", b)) if index % 2 == 0 else (("b", b), ("a", a))
        for side, checkout in order:
            figure = run_in(checkout, n_cases)
            figures[side].append(figure)
            print(
                f"round {index + 1} {side}: {figure['per_case_ms']:.3f} ms per case "
                f"(CPU {figure['cpu_per_case_ms']:.3f} ms)",
                flush=True,
            )
    median = {s: statistics.median(f["per_case_ms"] for f in figures[s]) for s in figures}
    cpu = {s: statistics.median(f["cpu_per_case_ms"] for f in figures[s]) for s in figures}
    ratio = median["b"] / median["a"]
    return {
        "a": str(a),
        "b": str(b),
        "cases": n_cases,
        "rounds": rounds,
        "per_case_ms": {s: [f["per_case_ms"] for f in figures[s]] for s in figures},
        "median_ms": median,
        "ratio_b_over_a": ratio,
        "cpu_per_case_ms": {s: [f["cpu_per_case_ms"] for f in figures[s]] for s in figures},
        "cpu_median_ms": cpu,
        "cpu_ratio_b_over_a": cpu["b"] / cpu["a"],
        "within_5_percent": ratio <= 1.05,
        "load_average": os.getloadavg(),
    }


def rows(commit: str, rounds: int, n_cases: int) -> list[Row]:
    """The comparison as rows of ``run.py``'s table (``--only ab --baseline COMMIT``)."""
    # Imported here, never in a measuring child: _common puts this checkout's src and
    # runners first on the path, and a child must see only the checkout it measures.
    from _common import Row

    a = _baseline(commit)
    try:
        result = compare(a, ROOT, rounds, n_cases)
    finally:
        _remove(a)
    median, cpu = result["median_ms"], result["cpu_median_ms"]
    assert isinstance(median, dict) and isinstance(cpu, dict)
    return [
        Row(
            "overhead_ab",
            f"{n_cases} trivial cases, per case, this checkout vs {commit}",
            median["b"],
            "ms",
            reference=median["a"],
            ratio=float(str(result["ratio_b_over_a"])),
            note=f"{rounds} rounds each, alternating; within 5%: {result['within_5_percent']}",
        ),
        Row(
            "overhead_ab",
            f"{n_cases} trivial cases, CPU per case (host, supervisor, worker) vs {commit}",
            cpu["b"],
            "ms",
            reference=cpu["a"],
            ratio=float(str(result["cpu_ratio_b_over_a"])),
            note="start-up left out (a one-case cell subtracted)",
        ),
    ]


def _remove(worktree: Path) -> None:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)],
        check=False,
        capture_output=True,
    )


def _baseline(commit: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="portbench-baseline-")) / commit
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), commit],
        check=True,
        capture_output=True,
    )
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, help="the baseline checkout")
    parser.add_argument("--b", type=Path, default=ROOT, help="the checkout measured against it")
    parser.add_argument("--baseline", help="a commit of this repository to check out as A")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.cases)))
        return 0
    if (args.a is None) == (args.baseline is None):
        parser.error("give the baseline as --a PATH or --baseline COMMIT")
    a = args.a or _baseline(args.baseline)
    try:
        result = compare(a.resolve(), args.b.resolve(), args.rounds, args.cases)
    finally:
        if args.baseline is not None:
            _remove(a)
    median = result["median_ms"]
    assert isinstance(median, dict)
    cpu = result["cpu_median_ms"]
    assert isinstance(cpu, dict)
    print(
        f"per case: A {median['a']:.3f} ms, B {median['b']:.3f} ms, "
        f"B/A {result['ratio_b_over_a']:.3f}; CPU per case A {cpu['a']:.3f} ms, "
        f"B {cpu['b']:.3f} ms, B/A {result['cpu_ratio_b_over_a']:.3f} "
        f"({args.rounds} rounds each, alternating)"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
