"""Reading cells from run directories: plan, env, sessions and records, tolerating damage.

Every file goes through the typed results layer (:mod:`portbench.results`): no link is
followed, every line is read within a size bound, strict JSON only, and a line that is not
a valid record (cut short, not JSON, a field missing, a case recorded twice) is skipped and
counted, never fatal. A record, plan or session of a newer schema than this portbench reads
is refused with one sentence.

A cell that ran zero cases, or whose last session did not complete, is reported as failed,
never as an empty success.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ResultsError
from ..outcomes import function_outcomes
from ..paths import results_dir
from ..plan import PLAN_SCHEMA
from ..results import Category, Outcome, read_document, read_results, read_sessions
from ..results.model import RECORD_SCHEMAS
from ..results.read import MAX_LINE_BYTES, PROBLEMS_KEPT
from ..results.safeio import loads_strict, open_nofollow

__all__ = ["ENV_SCHEMA", "Cell", "find_cells", "load_cell", "load_runs"]

#: The newest env.json schema this portbench reads.
ENV_SCHEMA = 1
#: Imported study cells (``portbench import-study``) are planned with this backend.
STUDY_BACKEND = "study"


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
    """Lines of results.jsonl skipped as unreadable (their cases count as not recorded)."""
    unreadable_session_lines: int = 0
    """Lines of sessions.jsonl skipped as unreadable."""
    problems: tuple[str, ...] = ()
    """The first few reasons results.jsonl lines were skipped ('line N: why')."""
    label: str = ""
    """The user's name for the run: ``--label`` kept in plan.json, or ``report RUN_DIR=LABEL``."""
    display: str = ""
    """The name tables show, when the cell id alone is not enough (see :mod:`.names`)."""

    @property
    def run_id(self) -> str:
        """The run directory's name (results/<run-id>/<cell>)."""
        return self.path.parent.name

    @property
    def name(self) -> str:
        """The cell as tables name it: its id, with run id and label where needed."""
        return self.display or self.cell_id

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


def find_cells(paths: list[Path]) -> list[Path]:
    """Cell directories under ``paths`` (a run dir, a cell dir, or a folder of runs)."""
    found: set[Path] = set()
    for base in paths:
        if not base.exists():
            raise ResultsError(f"{base} does not exist; pass run directories (results/<run-id>)")
        for marker in ("plan.json", "results.jsonl"):
            found.update(p.parent for p in base.rglob(marker))
    return sorted(found)


def _is_study(plan: dict[str, Any] | None, env: dict[str, Any] | None) -> bool:
    return STUDY_BACKEND in ((plan or {}).get("backend"), (env or {}).get("backend"))


def _study_lines(path: Path) -> list[tuple[int, bytes | None]]:
    """(line number, bytes) of ``path`` without following a link; None for an oversized line."""
    try:
        fd = open_nofollow(path, os.O_RDONLY)
    except FileNotFoundError:
        return []
    lines: list[tuple[int, bytes | None]] = []
    with os.fdopen(fd, "rb") as handle:
        while line := handle.readline(MAX_LINE_BYTES + 1):
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):
                    line = handle.readline(MAX_LINE_BYTES)
                lines.append((len(lines) + 1, None))
            else:
                lines.append((len(lines) + 1, line))
    return lines


def _study_record(obj: Any) -> str | None:
    """Why ``obj`` is not a study record the report can count, or None if it is one."""
    if not isinstance(obj, dict) or obj.get("kind") != "study":
        return "not a study record"
    if obj.get("schema") not in RECORD_SCHEMAS:
        return f"record schema {str(obj.get('schema'))[:20]} is not one of {RECORD_SCHEMAS}"
    for key in ("cell", "function", "case"):
        if not isinstance(obj.get(key), str):
            return f"'{key}' is missing or not a string"
    if not isinstance(obj.get("study_test_file"), (str, type(None))):
        return "'study_test_file' is not a string"
    if obj.get("outcome") not in {o.value for o in Outcome}:
        return f"outcome {str(obj.get('outcome'))[:40]!r} is not known"
    if obj.get("category") not in {None, *(c.value for c in Category)}:
        return f"category {str(obj.get('category'))[:40]!r} is not known"
    return None


def _study_records(path: Path) -> tuple[list[dict[str, Any]], int, tuple[str, ...]]:
    """The records of an imported study cell (``kind: study``; not case records, so not
    :func:`read_results`'s), read with the same care: links refused, lines bounded, strict
    JSON, damaged lines and duplicates skipped and counted."""
    records: list[dict[str, Any]] = []
    seen: set[str] = set()
    skipped = 0
    problems: list[str] = []
    for number, line in _study_lines(path):
        why: str | None
        if line is None:
            why = f"longer than {MAX_LINE_BYTES} bytes"
        elif not line.strip():
            continue
        else:
            try:
                obj = loads_strict(line)
            except (UnicodeDecodeError, ValueError):
                obj, why = None, "not JSON (cut short?)"
            else:
                schema = obj.get("schema") if isinstance(obj, dict) else None
                if isinstance(schema, int) and schema > max(RECORD_SCHEMAS):
                    raise ResultsError(
                        f"{path} holds records of schema {schema}, newer than this portbench "
                        f"reads ({max(RECORD_SCHEMAS)}); upgrade portbench to read them"
                    )
                why = _study_record(obj)
                # One study test per line: its key (file:test) is unique, the case id need
                # not be (two test files can hold a test of the same name).
                key = str(obj.get("study_key") or obj.get("case")) if why is None else ""
                if why is None and key in seen:
                    why = f"{key[:80]} recorded twice (the first record is kept)"
            if why is None:
                seen.add(key)
                records.append(obj)
                continue
        skipped += 1
        if len(problems) < PROBLEMS_KEPT:
            problems.append(f"line {number}: {why}")
    return records, skipped, tuple(problems)


def load_cell(path: Path) -> Cell:
    plan = read_document(path / "plan.json", "plan", schema_max=PLAN_SCHEMA)
    env = read_document(path / "env.json", "env", schema_max=ENV_SCHEMA)
    session_lines, bad_sessions = read_sessions(path / "sessions.jsonl")
    sessions = [s.to_json() for s in session_lines]
    if _is_study(plan, env):
        records, skipped, problems = _study_records(path / "results.jsonl")
    else:
        read = read_results(path / "results.jsonl")
        records, skipped, problems = read.dicts(), read.skipped, read.problems
    source: dict[str, Any] = plan or env or (records[0] if records else {})
    cell_id = str(source.get("cell") or path.name)
    parts = cell_id.split("/")
    framework, accelerator, profile = ([*parts, "?", "?", "?"])[:3]
    label = (plan or {}).get("label")
    return Cell(
        path,
        cell_id,
        framework,
        accelerator,
        profile,
        plan,
        env,
        sessions,
        records,
        skipped,
        bad_sessions,
        problems,
        label if isinstance(label, str) else "",
    )


#: Kept runs (results/reference/) are the project's, not the user's: left out by default.
REFERENCE = "reference"


def load_runs(paths: list[Path] | None = None, with_reference: bool = False) -> list[Cell]:
    """Every cell under ``paths``; by default everything under results/ except the
    project's reference runs (results/reference/), unless ``with_reference``."""
    if paths:
        return [load_cell(p) for p in find_cells(paths)]
    root = results_dir()
    if not root.exists():
        return []
    cells = find_cells([root])
    if not with_reference:
        cells = [p for p in cells if not p.is_relative_to(root / REFERENCE)]
    return [load_cell(p) for p in cells]
