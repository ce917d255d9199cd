"""Reading a cell's files: every host reader goes through here, and none crashes on damage.

Every line and document passes the contract's one bounded reader (size, nesting depth,
keys, numbers checked before decoding), then its typed ``from_json``: a line that is not a
valid record (cut short, not JSON, nested too deep, a field missing or of the wrong type) is
skipped and counted, with the first few reasons kept for the message; a record of a newer
schema than this portbench reads is refused with one sentence. Files are opened without
following links.

One record per case: the first record of a case counts. The one exception is the record the
host made of the case a dead supervisor was running (``for_dead_supervisor``): a later
record of that case (the resumed cell's) supersedes it; the superseded line stays in the
file for audit and is counted apart, never as a second record.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from portbench_runner.contract import (
    DOCUMENT,
    ENV_SCHEMA,
    LINE,
    MAX_LINE_BYTES,
    ContractError,
    EnvDocument,
    LineRefused,
    read_json,
)

from ..errors import ResultsError
from .model import RECORD_SCHEMAS, CaseRecord, RecordKind, SessionLine, StudyRecord
from .safeio import open_nofollow, read_bounded

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_LINE_BYTES",
    "PROBLEMS_KEPT",
    "ResultsRead",
    "StudyRead",
    "read_document",
    "read_env",
    "read_results",
    "read_sessions",
    "read_study_results",
]

MAX_DOCUMENT_BYTES = DOCUMENT.max_bytes
PROBLEMS_KEPT = 5
R = TypeVar("R", CaseRecord, StudyRecord, SessionLine)


@dataclass(frozen=True)
class Lines:
    """What a file of records held: its valid records, how many lines were skipped and why,
    and how many host records of a dead supervisor's case a later record superseded."""

    skipped: int
    problems: tuple[str, ...]
    superseded: int = 0

    def summary(self, path: Path) -> str:
        """One sentence on what was skipped, or '' if nothing was."""
        if not self.skipped:
            return ""
        return (
            f"{path}: {self.skipped} line(s) skipped as unreadable "
            f"({'; '.join(self.problems)}); their cases count as not recorded"
        )


@dataclass(frozen=True)
class ResultsRead(Lines):
    records: tuple[CaseRecord, ...] = ()

    @property
    def recorded(self) -> frozenset[str]:
        """Cases with a record that stands: a host record of a dead supervisor's case does
        not (a resumed cell runs that case again)."""
        return frozenset(r.case for r in self.records if not r.for_dead_supervisor)


@dataclass(frozen=True)
class StudyRead(Lines):
    records: tuple[StudyRecord, ...] = ()


def _lines(path: Path) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) per line; ``None`` for a line over the size bound."""
    try:
        fd = open_nofollow(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    with os.fdopen(fd, "rb") as handle:
        number = 0
        while True:
            line = handle.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            number += 1
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                # Skip the rest of the oversized line.
                while line and not line.endswith(b"\n"):
                    line = handle.readline(MAX_LINE_BYTES)
                yield number, None
                continue
            yield number, line


def _refuse_newer(path: Path, obj: object) -> None:
    schema = obj.get("schema") if isinstance(obj, dict) else None
    if isinstance(schema, int) and schema > max(RECORD_SCHEMAS):
        raise ResultsError(
            f"{path} holds records of schema {schema}, newer than this portbench reads "
            f"({max(RECORD_SCHEMAS)}); upgrade portbench to read them"
        )


class _Tally:
    """Skipped lines and their first few reasons."""

    def __init__(self) -> None:
        self.skipped = 0
        self.problems: list[str] = []

    def skip(self, number: int, why: str) -> None:
        self.skipped += 1
        if len(self.problems) < PROBLEMS_KEPT:
            self.problems.append(f"line {number}: {why}")


def _read_lines(path: Path, read: Callable[[object], R], tally: _Tally) -> Iterator[tuple[int, R]]:
    """Each line of ``path`` that ``read`` accepts; the rest are skipped and counted."""
    for number, line in _lines(path):
        if line is None:
            tally.skip(number, f"longer than {MAX_LINE_BYTES} bytes")
            continue
        if not line.strip():
            continue
        try:
            obj = read_json(line, LINE)
        except LineRefused as exc:
            tally.skip(number, str(exc))
            continue
        _refuse_newer(path, obj)
        try:
            yield number, read(obj)
        except ContractError as exc:
            tally.skip(number, str(exc)[:200])


def read_results(path: Path, kind: RecordKind = RecordKind.CASE) -> ResultsRead:
    """The records of ``path`` (``results.jsonl``), one per case; a missing file holds none.
    ``kind``: the records to read (a mutation run's are ``mutant``; other lines are skipped)."""
    tally = _Tally()
    kept: dict[str, CaseRecord] = {}
    superseded = 0
    for number, record in _read_lines(path, lambda obj: CaseRecord.from_json(obj, kind), tally):
        first = kept.get(record.case)
        if first is None:
            kept[record.case] = record
        elif first.for_dead_supervisor and not record.for_dead_supervisor:
            kept[record.case] = record
            superseded += 1
        elif record.for_dead_supervisor:
            superseded += 1
        else:
            tally.skip(number, f"{record.case[:80]} recorded twice (the first record is kept)")
    return ResultsRead(tally.skipped, tuple(tally.problems), superseded, tuple(kept.values()))


def read_study_results(path: Path) -> StudyRead:
    """The records of an imported study cell (``kind: study``), read with the same care:
    one per study test (its key: two test files can hold a test of one name)."""
    tally = _Tally()
    kept: dict[str, StudyRecord] = {}
    for number, record in _read_lines(path, StudyRecord.from_json, tally):
        if record.key in kept:
            tally.skip(number, f"{record.key[:80]} recorded twice (the first record is kept)")
            continue
        kept[record.key] = record
    return StudyRead(tally.skipped, tuple(tally.problems), 0, tuple(kept.values()))


def read_sessions(path: Path) -> tuple[list[SessionLine], int]:
    """Session lines of ``sessions.jsonl`` and how many lines were unreadable."""
    tally = _Tally()
    sessions = [s for _, s in _read_lines(path, SessionLine.from_json, tally)]
    return sessions, tally.skipped


def read_document(path: Path, kind: str, schema_max: int = 1) -> dict[str, object] | None:
    """A JSON document (a matrix request, a node's state): the object, or None if it is
    missing or does not read within the document bounds. A document of a newer schema than
    ``schema_max`` is refused with one sentence."""
    try:
        data = read_json(read_bounded(path, MAX_DOCUMENT_BYTES), DOCUMENT)
    except FileNotFoundError:
        return None
    except (OSError, LineRefused, ResultsError):
        return None
    if not isinstance(data, dict):
        return None
    schema = data.get("schema", 1)
    if isinstance(schema, int) and schema > schema_max:
        raise ResultsError(
            f"{path} is a {kind} of schema {schema}, newer than this portbench reads "
            f"({schema_max}); upgrade portbench to read it"
        )
    return data


def read_env(path: Path) -> EnvDocument | None:
    """A cell's env.json, typed; None where it is missing or does not read (an env only
    informs: a reader shows its facts as unknown). A newer schema is one sentence."""
    data = read_document(path, "env", schema_max=ENV_SCHEMA)
    if data is None:
        return None
    try:
        return EnvDocument.from_json(data, str(path))
    except ContractError:
        return None
