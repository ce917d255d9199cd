"""The host side of a cell's record stream: check each message, store it, never trust it.

The in-cell supervisor sends its messages as lines on its stdout (``env``, ``start``,
``finished``, ``record``, ``session``: the contract's protocol). :class:`CellWriter` is the
only writer of a cell's records. Each line passes the contract's bounded reader and typed
decoding; a record is stored only if it is of this cell's plan and kind, and the first for
its case (or supersedes the host's own record of a dead supervisor's case); anything else is
counted and dropped, and the session line says how many. Files are opened without following
links and every write is whole or undone (``safeio``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import TracebackType

from portbench_runner.contract import (
    HOST_MESSAGES,
    MAX_LINE_BYTES,
    SESSION_SCHEMA,
    ContractError,
    EnvDocument,
    EnvMessage,
    Finished,
    Integrity,
    IntegrityVerdict,
    LineSplitter,
    Plan,
    RecordedBy,
    RecordFactory,
    RecordMessage,
    SessionMessage,
    SessionStatus,
    Start,
    WorkerInfo,
    dead_supervisor_result,
    decode,
    iso_time,
)

from ..errors import UsageError
from .integrity import Ledger, digest_of, tampered_since
from .lock import CellLock
from .model import CaseRecord, RecordInvalid, RecordKind, SessionLine
from .read import read_results, read_sessions
from .safeio import DiskFull, append_line, open_nofollow, write_new

__all__ = ["CellWriter"]

REJECTIONS_KEPT = 5


class CellWriter:
    """Context manager over one cell directory for one session: lock, check, append.

    ``on_record`` is called with each stored record (the progress bar), ``on_start`` with
    the case the cell has begun.
    """

    def __init__(
        self,
        cell_dir: Path,
        plan: Plan,
        on_record: Callable[[CaseRecord], None] | None = None,
        on_start: Callable[[str], None] | None = None,
    ) -> None:
        self.cell_dir = cell_dir
        self.plan = plan
        self.cell_id = plan.cell
        self.kind = RecordKind.MUTANT if plan.is_mutation else RecordKind.CASE
        self.results_path = cell_dir / "results.jsonl"
        self.sessions_path = cell_dir / "sessions.jsonl"
        self.env_path = cell_dir / "env.json"
        self.on_record = on_record
        self.on_start = on_start
        self._lock = CellLock(cell_dir)
        self._fd: int | None = None
        self._splitter = LineSplitter()
        self.recorded: set[str] = set()
        """Cases whose record stands (a host record of a dead supervisor's case does not)."""
        self.provisional: set[str] = set()
        """Cases whose only record is the host's, for a supervisor that died."""
        self.previous_skipped = 0
        self.previous_summary = ""
        self.written = 0
        self.superseded = 0
        self.rejected = 0
        self.rejections: list[str] = []
        self.inflight: str | None = None
        """The case the supervisor said it started and has not finished."""
        self.session: SessionLine | None = None
        self.failure: DiskFull | None = None
        self.started = iso_time()
        self.siblings: dict[str, CellWriter] = {}
        """A predicted pass's other cells, by cell id: their records and env arrive in
        this stream and are stored there, each checked as that cell's own (session.py)."""
        self.ledger = Ledger(None, 0)
        self.tampered_before: str | None = None

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> CellWriter:
        self._lock.__enter__()
        try:
            previous = read_results(self.results_path, self.kind)
            foreign = next((r.cell for r in previous.records if r.cell != self.cell_id), None)
            if foreign is not None:
                raise UsageError(
                    f"{self.results_path} holds records of cell {foreign!r}, not "
                    f"{self.cell_id!r}; give this cell its own run directory"
                )
            self.recorded = set(previous.recorded)
            self.provisional = {r.case for r in previous.records} - self.recorded
            self.previous_skipped = previous.skipped
            self.previous_summary = previous.summary(self.results_path)
            self._fd = open_nofollow(self.results_path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
            self._open_ledger(self._fd)
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        return self

    def _open_ledger(self, fd: int) -> None:
        """The file as this session finds it, checked against the last session's verdict;
        then a line cut short (a killed writer) is ended, and the ledger starts."""
        sessions, _ = read_sessions(self.sessions_path)
        self.tampered_before = tampered_since(sessions, fd)
        digest, size = digest_of(fd)
        if _end_last_line(fd, self.results_path):
            digest.update(b"\n")
            size += 1
        self.ledger = Ledger(digest, size)

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
        """Planned cases with no record that stands yet, in plan order (a case whose only
        record is the host's, for a dead supervisor, runs again)."""
        return [case for case in self.plan.case_ids if case not in self.recorded]

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
        if len(self.rejections) < REJECTIONS_KEPT:
            self.rejections.append(why[:200])

    def _line(self, line: bytes) -> None:
        if self.failure is not None:
            return  # the disk is full: nothing more is stored this session
        try:
            message = decode(line, HOST_MESSAGES)
            if isinstance(message, RecordMessage):
                self._store(message.record)
            elif isinstance(message, Start):
                self.inflight = message.case if message.case in self.plan else None
                if self.inflight and self.on_start:
                    self.on_start(self.inflight)
            elif isinstance(message, Finished):
                if self.inflight == message.case:
                    self.inflight = None
            elif isinstance(message, EnvMessage):
                self._env(message.env)
            elif isinstance(message, SessionMessage):
                self.session = message.session
                for cell_id, sibling in self.siblings.items():
                    sibling.session = replace(message.session, cell=cell_id)
        except ContractError as exc:
            self._reject(str(exc))
        except DiskFull as exc:
            self.failure = exc

    def _store(self, record: CaseRecord) -> None:
        sibling = self.siblings.get(record.cell)
        if sibling is not None:
            sibling._store(record)
            return
        if record.cell != self.cell_id:
            raise RecordInvalid(f"a record of cell {record.cell[:60]!r}, not {self.cell_id!r}")
        if record.kind is not self.kind:
            raise RecordInvalid(
                f"a {record.kind.value} record in a cell of {self.kind.value} records"
            )
        if record.case not in self.plan:
            raise RecordInvalid(f"a record of {record.case[:80]!r}, which the plan does not hold")
        if record.case in self.recorded or (
            record.for_dead_supervisor and record.case in self.provisional
        ):
            raise RecordInvalid(f"a second record of {record.case[:80]!r}")
        assert self._fd is not None
        self.ledger.appended(append_line(self._fd, record.to_json(), self.results_path))
        if record.for_dead_supervisor:
            self.provisional.add(record.case)
        else:
            if record.case in self.provisional:
                # The resumed cell's record of a case a dead supervisor was running: the
                # host's record of it stays in the file, superseded.
                self.provisional.discard(record.case)
                self.superseded += 1
            self.recorded.add(record.case)
        self.written += 1
        if self.inflight == record.case:
            self.inflight = None
        if self.on_record:
            self.on_record(record)

    def _env(self, env: EnvDocument) -> None:
        if env.cell != self.cell_id:
            raise RecordInvalid(f"the env of cell {env.cell[:60]!r}, not {self.cell_id!r}")
        # The first session's environment stays: a resumed cell keeps its first env.json.
        write_new(self.env_path, env.to_json())
        for cell_id, sibling in self.siblings.items():
            if sibling.need_env:
                write_new(sibling.env_path, replace(env, cell=cell_id).to_json())

    def store_host_record(self, record: CaseRecord) -> None:
        """A record the host itself makes or carries: the case a dead supervisor was running,
        or a record of this cell kept elsewhere (a resume on another node)."""
        try:
            self._store(record)
        except DiskFull as exc:
            self.failure = exc

    def record_dead_supervisor(self, exit_status: int) -> str | None:
        """Record the case in flight when the supervisor died, by the one factory, as the
        host's (a resumed cell runs it again); the case's id, or None if none was in flight."""
        case = self.inflight
        if case is None:
            return None
        record = RecordFactory(self.plan).record(
            case, dead_supervisor_result(exit_status), WorkerInfo(None, 0), duration_s=0.0,
            recorded_by=RecordedBy.HOST,
        )  # fmt: skip
        try:
            self.store_host_record(record)
            for sibling in self.siblings.values():
                sibling.store_host_record(RecordFactory(sibling.plan).in_this_cell(record))
        except RecordInvalid:
            return None
        return case

    # -- the end -----------------------------------------------------------------------
    def integrity(self) -> Integrity:
        """Whether results.jsonl holds exactly what portbench wrote (``integrity``)."""
        if self._fd is None:
            return Integrity(IntegrityVerdict.UNCHECKED, "the cell's records were not open")
        try:
            return self.ledger.verdict(self._fd, self.tampered_before)
        except OSError as exc:
            return Integrity(IntegrityVerdict.UNCHECKED, f"results.jsonl unreadable ({exc})")

    def finish(self, exit_status: int, host_reason: str | None = None) -> SessionLine:
        """Append this session's line: the supervisor's, with what the host saw added."""
        session = self.session or SessionLine(
            cell=self.cell_id,
            status=SessionStatus.INTERRUPTED if exit_status == 130 else SessionStatus.ABORTED,
            reason=host_reason
            or f"the cell's supervisor ended (exit {exit_status}) without saying how",
            started_at=self.started,
        )
        if self.failure is not None:
            session = replace(session, status=SessionStatus.ABORTED, reason=str(self.failure))
        elif host_reason and session.complete:
            session = replace(session, status=SessionStatus.ABORTED, reason=host_reason)
        session = replace(
            session,
            schema=SESSION_SCHEMA,
            cell=self.cell_id,
            records_written=self.written,
            rejected_lines=self.rejected,
            rejected_reasons=tuple(self.rejections),
            truncated_lines=self.previous_skipped,
            exit_status=exit_status,
            superseded=self.superseded,
            ended_at=session.ended_at or iso_time(),
            integrity=self.integrity(),
        )
        try:
            fd = open_nofollow(self.sessions_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            try:
                session = replace(session, index=_count_lines(self.sessions_path))
                append_line(fd, session.to_json(), self.sessions_path)
            finally:
                os.close(fd)
        except DiskFull as exc:
            self.failure = self.failure or exc
        return session


def _end_last_line(fd: int, path: Path) -> bool:
    """A line cut short (a killed writer) must not swallow the next record: end it (True
    where a line end was written)."""
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        os.write(fd, b"\n")
        return True
    return False


def _count_lines(path: Path) -> int:
    fd = open_nofollow(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle:
        return sum(1 for line in handle if line.strip())
