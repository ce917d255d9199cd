"""The host side of a cell's record stream: check each message, store it, never trust it.

The in-cell supervisor sends its messages as lines on its stdout (``env``, ``start``,
``record``, ``session``; see runners/portbench_runner/protocol.py). :class:`CellWriter` is
the only writer of a cell's records. It accepts a record only if it is valid, belongs to
this cell's plan, and is the first for its case; anything else is counted and dropped, and
the session line says how many. Files are opened without following links and every write is
whole or undone (``safeio``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any

from ..errors import UsageError
from .lock import CellLock
from .model import CaseRecord, RecordInvalid, SessionLine
from .read import MAX_LINE_BYTES, read_results
from .safeio import DiskFull, append_line, loads_strict, open_nofollow, write_new

__all__ = ["CellWriter", "LineSplitter"]

SESSION_SCHEMA = 2


def _now_iso() -> str:
    return datetime.now(tz=timezone.utc).isoformat(timespec="milliseconds")


class LineSplitter:
    """Bytes in, whole lines out; a line over the bound is dropped and counted."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self._buffer = b""
        self._limit = limit
        self._discarding = False
        self.oversized = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        out: list[bytes] = []
        self._buffer += chunk
        while True:
            newline = self._buffer.find(b"\n")
            if newline < 0:
                if len(self._buffer) > self._limit:
                    self.oversized += 0 if self._discarding else 1
                    self._discarding = True
                    self._buffer = b""
                return out
            line, self._buffer = self._buffer[:newline], self._buffer[newline + 1 :]
            if self._discarding:
                self._discarding = False
            elif line.strip():
                out.append(line)


class CellWriter:
    """Context manager over one cell directory for one session: lock, check, append.

    ``on_record`` is called with each stored record (the progress bar), ``on_start`` with
    the case the cell has begun.
    """

    def __init__(
        self,
        cell_dir: Path,
        plan: Mapping[str, Any],
        on_record: Callable[[CaseRecord], None] | None = None,
        on_start: Callable[[str], None] | None = None,
    ) -> None:
        self.cell_dir = cell_dir
        self.plan = plan
        self.cell_id = str(plan["cell"])
        self.planned = {c["id"] for f in plan["functions"] for c in f["cases"]}
        self.results_path = cell_dir / "results.jsonl"
        self.sessions_path = cell_dir / "sessions.jsonl"
        self.env_path = cell_dir / "env.json"
        self.on_record = on_record
        self.on_start = on_start
        self._lock = CellLock(cell_dir)
        self._fd: int | None = None
        self._splitter = LineSplitter()
        self.recorded: set[str] = set()
        self.previous_skipped = 0
        self.previous_summary = ""
        self.written = 0
        self.rejected = 0
        self.rejections: list[str] = []
        self.inflight: str | None = None
        self.session: dict[str, Any] | None = None
        self.failure: DiskFull | None = None
        self.started = _now_iso()

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> CellWriter:
        self._lock.__enter__()
        try:
            previous = read_results(self.results_path)
            foreign = next((r.cell for r in previous.records if r.cell != self.cell_id), None)
            if foreign is not None:
                raise UsageError(
                    f"{self.results_path} holds records of cell {foreign!r}, not "
                    f"{self.cell_id!r}; give this cell its own run directory"
                )
            self.recorded = set(previous.recorded)
            self.previous_skipped = previous.skipped
            self.previous_summary = previous.summary(self.results_path)
            self._fd = open_nofollow(self.results_path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
            _end_last_line(self._fd, self.results_path)
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._lock.__exit__(exc_type, exc, tb)

    @property
    def todo(self) -> list[str]:
        """Planned cases with no record yet, in plan order."""
        return [
            c["id"]
            for f in self.plan["functions"]
            for c in f["cases"]
            if c["id"] not in self.recorded
        ]

    @property
    def need_env(self) -> bool:
        return not os.path.lexists(self.env_path)

    # -- the stream ------------------------------------------------------------------
    def feed(self, chunk: bytes) -> None:
        """Bytes from the supervisor's stdout; whole lines are handled as they complete."""
        before = self._splitter.oversized
        for line in self._splitter.feed(chunk):
            self._line(line)
        for _ in range(self._splitter.oversized - before):
            self._reject(f"a line over {MAX_LINE_BYTES} bytes")

    def _reject(self, why: str) -> None:
        self.rejected += 1
        if len(self.rejections) < 5:
            self.rejections.append(why)

    def _line(self, line: bytes) -> None:
        if self.failure is not None:
            return  # the disk is full: nothing more is stored this session
        try:
            message = loads_strict(line)
        except (UnicodeDecodeError, ValueError):
            self._reject("a line that is not JSON")
            return
        kind = message.get("type") if isinstance(message, dict) else None
        try:
            if kind == "record":
                self._store(message.get("record"))
            elif kind == "start" and isinstance(message.get("case"), str):
                self.inflight = message["case"] if message["case"] in self.planned else None
                if self.inflight and self.on_start:
                    self.on_start(self.inflight)
            elif kind == "env" and isinstance(message.get("env"), dict):
                self._env(message["env"])
            elif kind == "session" and isinstance(message.get("session"), dict):
                SessionLine.from_json(message["session"])
                self.session = message["session"]
            else:
                self._reject(f"an unknown message {str(kind)[:40]!r}")
        except RecordInvalid as exc:
            self._reject(str(exc)[:200])
        except DiskFull as exc:
            self.failure = exc

    def _store(self, obj: Any) -> None:
        record = CaseRecord.from_json(obj)
        if record.cell != self.cell_id:
            raise RecordInvalid(f"a record of cell {record.cell[:60]!r}, not {self.cell_id!r}")
        if record.case not in self.planned:
            raise RecordInvalid(f"a record of {record.case[:80]!r}, which the plan does not hold")
        if record.case in self.recorded:
            raise RecordInvalid(f"a second record of {record.case[:80]!r}")
        assert self._fd is not None
        append_line(self._fd, record.to_json(), self.results_path)
        self.recorded.add(record.case)
        self.written += 1
        if self.inflight == record.case:
            self.inflight = None
        if self.on_record:
            self.on_record(record)

    def _env(self, env: dict[str, Any]) -> None:
        # The first session's environment stays: a resumed cell keeps its first env.json.
        write_new(self.env_path, env)

    def store_host_record(self, record: dict[str, Any]) -> None:
        """A record the host itself makes (the in-flight case of a supervisor that died)."""
        try:
            self._store(record)
        except DiskFull as exc:
            self.failure = exc

    # -- the end -----------------------------------------------------------------------
    def finish(self, exit_status: int, host_reason: str | None = None) -> dict[str, Any]:
        """Append this session's line: the supervisor's, with what the host saw added."""
        session: dict[str, Any] = dict(self.session or {})
        if not session:
            session = {
                "status": "interrupted" if exit_status == 130 else "aborted",
                "reason": host_reason
                or f"the cell's supervisor ended (exit {exit_status}) without saying how",
                "started_at": self.started,
                "ended_at": _now_iso(),
                "records_written": self.written,
                "restarts": 0,
                "skipped_already_recorded": 0,
            }
        if self.failure is not None:
            session["status"] = "aborted"
            session["reason"] = str(self.failure)
        elif host_reason and session.get("status") == "complete":
            session["status"], session["reason"] = "aborted", host_reason
        session.update(
            schema=SESSION_SCHEMA,
            kind="session",
            cell=self.cell_id,
            records_written=self.written,
            rejected_lines=self.rejected,
            rejected_reasons=list(self.rejections),
            truncated_lines=self.previous_skipped,
            exit_status=exit_status,
            ended_at=session.get("ended_at") or _now_iso(),
        )
        try:
            fd = open_nofollow(self.sessions_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            try:
                session["index"] = _count_lines(self.sessions_path)
                append_line(fd, session, self.sessions_path)
            finally:
                os.close(fd)
        except DiskFull as exc:
            self.failure = self.failure or exc
        return session


def _end_last_line(fd: int, path: Path) -> None:
    """A line cut short (a killed writer) must not swallow the next record: end it."""
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        os.write(fd, b"\n")


def _count_lines(path: Path) -> int:
    fd = open_nofollow(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle:
        return sum(1 for line in handle if line.strip())
