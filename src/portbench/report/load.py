"""Reading cells from run directories: plan, env, sessions and records, tolerating damage.

A cell that ran zero cases, or whose last session did not complete, is reported as failed,
never as an empty success; unreadable lines are counted and reported, never fatal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ResultsError
from ..outcomes import function_outcomes
from ..paths import results_dir

__all__ = ["Cell", "find_cells", "load_cell", "load_runs"]

SCHEMA = 1


@dataclass(frozen=True)
class Cell:
    path: Path
    cell_id: str
    framework: str
    accelerator: str
    profile: str
    plan: dict[str, Any] | None
    env: dict[str, Any] | None
    sessions: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    unreadable_lines: int = 0

    @property
    def status(self) -> str:
        """``complete``, ``incomplete`` (stopped early, resumable) or ``failed``."""
        if self.plan is None or not self.records:
            return "failed"
        if not self.sessions or self.sessions[-1].get("status") != "complete":
            return "incomplete"
        return "complete"

    def function_outcomes(self) -> dict[tuple[str, str | None], str]:
        """Outcome per (function, study test file) of every planned function, with or
        without records (the denominator), by the one rule in ``portbench.outcomes``."""
        return function_outcomes(self.plan or {"functions": []}, self.records)

    @property
    def device_name(self) -> str:
        device = (self.env or {}).get("device") or {}
        return str(device.get("device_name") or "?")

    @property
    def backend(self) -> str:
        return str((self.env or {}).get("backend") or (self.plan or {}).get("backend") or "?")


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and int(data.get("schema", 1)) > SCHEMA:
        raise ResultsError(
            f"{path} has schema {data['schema']}, newer than this portbench reads ({SCHEMA}); "
            "upgrade portbench to report on it"
        )
    return data if isinstance(data, dict) else None


def _read_lines(path: Path) -> tuple[list[dict[str, Any]], int]:
    rows: list[dict[str, Any]] = []
    bad = 0
    if not path.exists():
        return rows, bad
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(row, dict):
            if int(row.get("schema", 1)) > SCHEMA:
                raise ResultsError(
                    f"{path} holds records of schema {row['schema']}; upgrade portbench to report on it"
                )
            rows.append(row)
    return rows, bad


def find_cells(paths: list[Path]) -> list[Path]:
    """Cell directories under ``paths`` (a run dir, a cell dir, or a folder of runs)."""
    found: set[Path] = set()
    for base in paths:
        if not base.exists():
            raise ResultsError(f"{base} does not exist; pass run directories (results/<run-id>)")
        for marker in ("plan.json", "results.jsonl"):
            found.update(p.parent for p in base.rglob(marker))
    return sorted(found)


def load_cell(path: Path) -> Cell:
    plan = _read_json(path / "plan.json")
    env = _read_json(path / "env.json")
    sessions, _ = _read_lines(path / "sessions.jsonl")
    records, bad = _read_lines(path / "results.jsonl")
    source = plan or env or (records[0] if records else {})
    cell_id = str(source.get("cell") or path.name)
    parts = cell_id.split("/")
    framework, accelerator, profile = ([*parts, "?", "?", "?"])[:3]
    return Cell(path, cell_id, framework, accelerator, profile, plan, env, sessions, records, bad)


def load_runs(paths: list[Path] | None = None) -> list[Cell]:
    """Every cell under ``paths`` (default: everything under results/)."""
    return [load_cell(p) for p in find_cells(paths or [results_dir()])]
