"""Shared pieces: result rows, generated cells, running a cell's session and reading its records."""

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
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
RUNNERS = ROOT / "runners"
SRC = ROOT / "src"
for _path in (RUNNERS, SRC):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

if TYPE_CHECKING:
    from portbench.results import CaseRecord


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
    """A plan of ``n_cases`` cases, each running ``body`` (one function, ``demo.bench``), for
    ``framework``, compiled by the one plan builder tests use too; returns the plan's path."""
    from portbench.plan import PlanOptions, plan_from_case_files

    names = [f"c{i:04d}" for i in range(n_cases)]
    decorators = "\n".join(f'@case("{name}")' for name in names)
    source = (
        f"from portbench_runner.api import case\n{imports}\n\n{decorators}\ndef run(ctx):\n{body}\n"
    )
    options = PlanOptions(
        seed=1,
        case_timeout_s=120.0,
        worker_start_s=300.0,
        grace_s=1.0,
        max_restarts=3,
        timing={"warm_budget_s": 0.001, "max_warm_s": 0.01},
    )
    plan = plan_from_case_files(root, {"bench": source}, framework, options)
    path = root / "plan.json"
    path.write_text(json.dumps(plan.to_json()))
    return path


def supervise(
    plan: Path, cell_dir: Path, python: str = sys.executable, home: Path | None = None
) -> subprocess.Popen[bytes]:
    """One session of ``plan`` in ``cell_dir`` on the host backend, as ``bench`` runs it: the
    in-cell supervisor (run by ``python``) streams its records and the host stores them.
    ``home`` (PORTBENCH_HOME) is where the cell's runner comes from: another checkout's, to
    compare two runners in one run. The session's messages go to ``<cell_dir>.log``."""
    env = dict(os.environ)
    if home is not None:
        env["PORTBENCH_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(SRC), str(RUNNERS), *filter(None, [env.get("PYTHONPATH")])]
    )
    cmd = [
        sys.executable,
        "-m",
        "portbench.session",
        "--plan",
        str(plan),
        "--cell-dir",
        str(cell_dir),
        "--python",
        python,
    ]
    cell_dir.parent.mkdir(parents=True, exist_ok=True)
    with open(session_log(cell_dir), "wb") as log:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)


def session_log(cell_dir: Path) -> Path:
    return cell_dir.with_name(cell_dir.name + ".log")


def read_records(cell_dir: Path, expected: int) -> list[CaseRecord]:
    """The cell's records, read through the results layer; every case must be recorded."""
    from portbench.results import read_results

    read = read_results(cell_dir / "results.jsonl")
    if read.skipped or len(read.records) != expected:
        raise RuntimeError(
            f"the benchmark cell in {cell_dir} holds {len(read.records)} of {expected} records"
            + (f"; {read.summary(cell_dir / 'results.jsonl')}" if read.skipped else "")
        )
    return list(read.records)


def check_exit(proc: subprocess.Popen[bytes], cell_dir: Path) -> None:
    """Raise, with the session's last messages, if the session did not end cleanly."""
    if proc.wait() != 0:
        tail = session_log(cell_dir).read_text(errors="replace").strip().splitlines()[-5:]
        raise RuntimeError(
            f"the benchmark cell in {cell_dir} ended with exit {proc.returncode}: "
            + " | ".join(tail)
        )


@dataclass(frozen=True)
class CellRun:
    launched: float
    """Epoch seconds when the session process was started."""
    ended: float
    """Epoch seconds when it had exited (every record stored and fsynced by the host)."""
    records: list[CaseRecord]

    @property
    def wall_s(self) -> float:
        return self.ended - self.launched

    @property
    def first_case_s(self) -> float:
        return min(epoch(r.started_at) for r in self.records)


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
    cell_dir = root / "run"
    launched = time.time()
    proc = supervise(plan, cell_dir, python)
    check_exit(proc, cell_dir)
    ended = time.time()
    return CellRun(launched, ended, read_records(cell_dir, n_cases))


def epoch(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso).timestamp()
