"""The cell directory's files; the supervisor is their only writer, and never rewrites them.

- ``results.jsonl``  one record per case, appended then flushed and fsynced
- ``env.json``       written once (exclusive create) from the first worker's report
- ``sessions.jsonl`` one line per supervisor session: how it ended

Record schema history (``"schema"`` in each record):
  1 - first version.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Tuple

__all__ = ["RECORD_SCHEMA", "CellStore", "read_records"]

RECORD_SCHEMA = 1


def read_records(path: str) -> Tuple[List[Dict[str, Any]], List[int]]:
    """Records of a results file and the line numbers that could not be read.

    A line cut short by a killed supervisor is reported, never fatal.
    """
    records: List[Dict[str, Any]] = []
    bad: List[int] = []
    if not os.path.exists(path):
        return records, bad
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
            except ValueError:
                bad.append(number)
                continue
            if isinstance(record, dict) and record.get("kind") == "case":
                records.append(record)
            else:
                bad.append(number)
    return records, bad


def _append_line(path: str, data: Dict[str, Any]) -> None:
    line = json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        # A truncated last line (a killed writer) must not swallow the next record.
        if os.fstat(fd).st_size > 0:
            with open(path, "rb") as handle:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    line = "\n" + line
        os.write(fd, line.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


class CellStore:
    def __init__(self, run_dir: str) -> None:
        self.run_dir = run_dir
        os.makedirs(os.path.join(run_dir, "logs"), exist_ok=True)
        self.results_path = os.path.join(run_dir, "results.jsonl")
        self.env_path = os.path.join(run_dir, "env.json")
        self.sessions_path = os.path.join(run_dir, "sessions.jsonl")

    def existing(self) -> Tuple[List[Dict[str, Any]], List[int]]:
        return read_records(self.results_path)

    def append_record(self, record: Dict[str, Any]) -> None:
        _append_line(self.results_path, record)

    def append_session(self, session: Dict[str, Any]) -> None:
        _append_line(self.sessions_path, session)

    def session_count(self) -> int:
        if not os.path.exists(self.sessions_path):
            return 0
        with open(self.sessions_path, "rb") as handle:
            return sum(1 for line in handle if line.strip())

    def write_env_once(self, env: Dict[str, Any]) -> bool:
        """Write env.json unless it exists (a resumed cell keeps its first env); True if written."""
        try:
            fd = os.open(self.env_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(env, handle, indent=2, sort_keys=True)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        return True

    def log_path(self, name: str) -> str:
        return os.path.join(self.run_dir, "logs", name)
