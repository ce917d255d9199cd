"""Shared pieces: result rows, generated cells, running a supervisor and reading its records."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNNERS = ROOT / "runners"
if str(RUNNERS) not in sys.path:
    sys.path.insert(0, str(RUNNERS))


@dataclass(frozen=True)
class Row:
    """One figure: benchmark, what was measured, value and unit, and what to compare it with."""

    benchmark: str
    item: str
    value: float
    unit: str
    reference: float | None = None
    ratio: float | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def spread(values: list[float]) -> float:
    """(max - min) / median: how far repeated measurements of one thing disagree."""
    med = statistics.median(values)
    return (max(values) - min(values)) / med if med else 0.0


def write_cell(
    root: Path, n_cases: int, body: str, framework: str = "python", imports: str = ""
) -> Path:
    """A plan of ``n_cases`` cases, each running ``body`` (one function), for ``framework``."""
    cases = root / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    names = [f"c{i:04d}" for i in range(n_cases)]
    decorators = "\n".join(f'@case("{name}")' for name in names)
    (cases / "bench.py").write_text(
        f"from portbench_runner.api import case\n{imports}\n\n{decorators}\ndef run(ctx):\n{body}\n"
    )
    plan = {
        "schema": 1,
        "kind": "plan",
        "cell": f"{framework}/cpu/host",
        "framework": framework,
        "profile": "host",
        "backend": "host",
        "accelerator": {"id": "cpu", "flavor": "cpu", "device_match": "", "generic": "cpu"},
        "image": None,
        "manifest_root": str(root),
        "functions": [
            {
                "function": "bench.run",
                "study_test_file": "bench_test.py",
                "stratum": "1",
                "frequency": 1,
                "case_file": "cases/bench.py",
                "case_file_sha256": None,
                "untested_reason": None,
                "cases": [
                    {"id": f"bench.run::{n}", "name": n, "seed": i, "timeout_s": 120}
                    for i, n in enumerate(names)
                ],
            }
        ],
        "rules": [],
        "timing": {"warm_budget_s": 0.001, "max_warm_s": 0.01},
        "timeouts": {"case_s": 120, "worker_start_s": 300, "grace_s": 1},
        "max_restarts": 3,
        "seed": 1,
        "rerun_prefix": "portbench bench",
        "portbench_version": "bench",
    }
    path = root / "plan.json"
    path.write_text(json.dumps(plan))
    return path


def supervise(plan: Path, run_dir: Path, python: str = sys.executable) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(RUNNERS))
    cmd = [
        python,
        "-m",
        "portbench_runner",
        "supervise",
        "--plan",
        str(plan),
        "--run-dir",
        str(run_dir),
    ]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@dataclass(frozen=True)
class CellRun:
    launched: float
    """Epoch seconds when the supervisor process was started."""
    ended: float
    """Epoch seconds when it had exited (every record written and fsynced)."""
    records: list[dict[str, Any]]

    @property
    def wall_s(self) -> float:
        return self.ended - self.launched

    @property
    def first_case_s(self) -> float:
        return min(epoch(r["started_at"]) for r in self.records)


def run_cell(
    n_cases: int,
    body: str,
    framework: str = "python",
    imports: str = "",
    python: str = sys.executable,
) -> CellRun:
    """Run a generated cell to completion."""
    root = Path(tempfile.mkdtemp(prefix="portbench-bench-"))
    plan = write_cell(root, n_cases, body, framework, imports)
    launched = time.time()
    proc = supervise(plan, root / "run", python)
    if proc.wait() != 0:
        raise RuntimeError(f"the benchmark cell in {root} ended with exit {proc.returncode}")
    ended = time.time()
    records = [
        json.loads(line) for line in (root / "run" / "results.jsonl").read_text().splitlines()
    ]
    return CellRun(launched, ended, records)


def epoch(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso).timestamp()
