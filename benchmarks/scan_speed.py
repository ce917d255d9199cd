"""``portbench scan`` speed on a real project: wall time from command to report, evidence included.

    python benchmarks/scan_speed.py [--project DIR] [--runs DIR ... | --store FILE]
                                    [--rounds 3] [--formats sarif html] [--warm] [--json OUT]

Without ``--project`` the transformers 4.46.3 sdist (1,826 Python files, 45 MB; torch,
TensorFlow and Flax/JAX code) is downloaded once with ``pip download --no-deps
--no-binary :all:`` into ``.portbench/bench-scan/`` and unpacked there. Each round runs
``python -m portbench scan`` in a fresh process (imports, API maps, evidence loading, reading,
resolving, verdicts and the JSON report all counted), with the default processes and with
one; the figure to compare with the issue's target (10 s for 2,000 files / 40 MB) is the
median wall time. CPU is user + system time of the scan and its worker processes: on a
shared machine the wall time says how busy the machine was as much as how fast the scan
is, the CPU time much less so. ``--formats`` times the other outputs too (SARIF, HTML:
one result per use and status), with the default processes; ``--warm`` a scan whose
``--cache`` already holds every file (filled by one scan first, not counted).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, SRC, Row

SDIST = "transformers==4.46.3"
SDIST_FILE = "transformers-4.46.3.tar.gz"


def default_project() -> Path:
    """The transformers sdist, unpacked under .portbench/bench-scan/ (downloaded once)."""
    cache = ROOT / ".portbench" / "bench-scan"
    unpacked = cache / "transformers-4.46.3"
    if unpacked.is_dir():
        return unpacked
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / SDIST_FILE
    if not archive.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                SDIST,
                "-d",
                str(cache),
            ],
            check=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data")
    return unpacked


def one_scan(
    project: Path,
    runs: list[Path],
    jobs: int,
    output: str = "json",
    cache: Path | None = None,
    store: Path | None = None,
) -> tuple[float, float, dict[str, object]]:
    """(wall s, CPU s of the scan and its workers, summary) of one fresh ``portbench scan``
    (the summary only for JSON); evidence from ``runs``, or ``store``, or the default."""
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / f"scan.{output}"
        command = [
            sys.executable,
            "-m",
            "portbench",
            "scan",
            str(project),
            "--format",
            output,
            "--out",
            str(out),
            "--jobs",
            str(jobs),
        ]
        if runs:
            command += ["--runs", *map(str, runs)]
        if store is not None:
            command += ["--store", str(store)]
        if cache is not None:
            command += ["--cache", str(cache)]
        env = dict(os.environ, PYTHONPATH=str(SRC), COLUMNS="120")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            command, check=False, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        wall = time.perf_counter() - started
        if done.returncode:
            sys.stderr.write(done.stderr.decode(errors="replace"))
            raise SystemExit(f"portbench scan failed (exit {done.returncode})")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        summary = json.loads(out.read_text())["summary"] if output == "json" else {}
    return wall, cpu, summary


def run(
    project: Path | None = None,
    runs: list[Path] | None = None,
    rounds: int = 3,
    formats: tuple[str, ...] = (),
    warm: bool = False,
    store: Path | None = None,
) -> list[Row]:
    project = project or default_project()
    runs = runs or []
    rows: list[Row] = []
    summary: dict[str, object] = {}
    for jobs in (0, 1):
        walls, cpus = [], []
        for _ in range(rounds):
            wall, cpu, summary = one_scan(project, runs, jobs, store=store)
            walls.append(wall)
            cpus.append(cpu)
        label = "default processes" if jobs == 0 else "one process"
        note = f"{summary['files']} files, {int(summary['bytes']) / 1e6:.1f} MB"  # type: ignore[call-overload]
        rows.append(
            Row(
                "scan",
                f"wall, {label}",
                statistics.median(walls),
                "s",
                10.0,
                statistics.median(walls) / 10.0,
                note + "; reference: the 10 s target",
            )
        )
        rows.append(Row("scan", f"CPU, {label}", statistics.median(cpus), "s", note=note))
    for output in formats:
        timed = [one_scan(project, runs, 0, output, store=store)[:2] for _ in range(rounds)]
        rows.append(Row("scan", f"wall, {output}", statistics.median(t[0] for t in timed), "s"))
        rows.append(Row("scan", f"CPU, {output}", statistics.median(t[1] for t in timed), "s"))
    if warm:
        with tempfile.TemporaryDirectory() as work:
            cache = Path(work) / "cache"
            one_scan(project, runs, 0, cache=cache, store=store)  # fills the cache: not counted
            timed = [
                one_scan(project, runs, 0, cache=cache, store=store)[:2] for _ in range(rounds)
            ]
        rows.append(Row("scan", "wall, warm --cache", statistics.median(t[0] for t in timed), "s"))
        rows.append(Row("scan", "CPU, warm --cache", statistics.median(t[1] for t in timed), "s"))
    timings = summary.get("timings_s", {})
    assert isinstance(timings, dict)
    for part in ("read", "resolve", "evidence"):
        rows.append(Row("scan", f"{part} (last round)", float(timings.get(part, 0.0)), "s"))
    for key in ("uses", "resolved", "unknown", "mapped_to_evidence", "unresolved_method_calls"):
        rows.append(Row("scan", key, float(summary[key]), "uses"))  # type: ignore[arg-type]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path)
    evidence = parser.add_mutually_exclusive_group()
    evidence.add_argument("--runs", type=Path, nargs="+", default=[])
    evidence.add_argument("--store", type=Path, help="evidence from a store (portbench ingest)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--formats", nargs="+", choices=("sarif", "html", "terminal"), default=[])
    parser.add_argument(
        "--warm", action="store_true", help="also a scan whose --cache holds every file"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = run(args.project, args.runs, args.rounds, tuple(args.formats), args.warm, args.store)
    for row in rows:
        print(f"{row.item:32} {row.value:12.3f} {row.unit:5} {row.note}")
    if args.json:
        args.json.write_text(json.dumps([r.to_json() for r in rows], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
