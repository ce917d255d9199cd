"""Wall time of predicted cells (#30): the JAX manifest lowered for tpu, cuda and rocm in one
pass (``--accelerator tpu,cuda,rocm``: one control, each case lowered for the three platforms
in the same worker), and the torch manifest on torch_xla's CPU client, environments already
built.

    python benchmarks/predict_timing.py [--profile current] [--torch-profile paper-nearest]
        [--separate]          # also the three JAX cells one by one, as before the pass
        [--functions F ...]   # a few functions only (a check that it runs, not a figure)

Each run uses ``portbench bench --predict --backend venv`` in a fresh run folder; the venvs
are built first (not timed). Per cell: wall seconds, cases, predicted passes and failures
and cases not predictable. Target: the three JAX cells within 5 minutes on the project's
2-core machine; the torch cell is reported as it is.
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

from _common import ROOT, Row

JAX_TARGETS = ("tpu", "cuda", "rocm")


def _bench(
    framework: str, target: str, profile: str, run_dir: Path, functions: tuple[str, ...] = ()
) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "portbench", "bench", "--framework", framework]
    command += ["--accelerator", target, "--predict", "--profile", profile, "--backend", "venv"]
    command += ["--functions", *functions] if functions else []
    started = time.perf_counter()
    subprocess.run(
        [*command, "--run-dir", str(run_dir)],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def _verdicts(cell: Path) -> Counter[str]:
    verdicts: Counter[str] = Counter()
    for line in (cell / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        verdicts[str((record.get("prediction") or {}).get("verdict"))] += 1
    return verdicts


def _note(cell: Path) -> str:
    counts = _verdicts(cell)
    return (
        f"{cell.name}: {sum(counts.values())} cases: {counts['pass']} pass, {counts['fail']} "
        f"fail, {counts['not_predictable']} not predictable"
    )


def _cell_rows(
    framework: str, target: str, profile: str, run_dir: Path, functions: tuple[str, ...] = ()
) -> list[Row]:
    """One run (one target, or several JAX targets in one pass) and its wall time."""
    seconds = _bench(framework, target, profile, run_dir, functions)
    note = "; ".join(_note(cell) for cell in sorted(run_dir.iterdir()))
    return [Row("predict", f"{framework} for {target} ({profile})", seconds, "s", note=note)]


def run(
    profile: str = "current",
    torch_profile: str | None = "paper-nearest",
    separate: bool = False,
    functions: tuple[str, ...] = (),
) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="portbench-predict-") as folder:
        base = Path(folder)
        # Build (or reuse) the environments untimed: one tiny cell each.
        for framework, prof, target in (("jax", profile, "tpu"), ("torch", torch_profile, "tpu")):
            if prof is None:
                continue
            env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
            command = [sys.executable, "-m", "portbench", "bench", "--framework", framework]
            command += ["--accelerator", target, "--predict", "--profile", prof]
            command += ["--backend", "venv", "--run-dir", str(base / f"warm-{framework}")]
            one = "torch.cat" if framework == "torch" else "jax.numpy.add"
            subprocess.run(
                [*command, "--functions", one],
                cwd=ROOT,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        rows += _cell_rows("jax", ",".join(JAX_TARGETS), profile, base / "jax-pass", functions)
        if separate:
            total = 0.0
            for target in JAX_TARGETS:
                row = _cell_rows("jax", target, profile, base / f"jax-{target}", functions)[0]
                total += row.value
                rows.append(row)
            rows.append(Row("predict", f"jax for {', '.join(JAX_TARGETS)} one by one", total, "s"))
        if torch_profile is not None:
            rows += _cell_rows("torch", "tpu", torch_profile, base / "torch-tpu")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="current")
    parser.add_argument("--torch-profile", default="paper-nearest")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--separate", action="store_true")
    parser.add_argument("--functions", nargs="*", default=[])
    args = parser.parse_args()
    torch_profile = None if args.no_torch else args.torch_profile
    for row in run(args.profile, torch_profile, args.separate, tuple(args.functions)):
        print(f"{row.item}: {row.value:.1f} {row.unit} ({row.note})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
