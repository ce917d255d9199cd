"""Reading a cell's files: every host reader goes through here, and none crashes on damage.

A line that is not a valid record (cut short, not JSON, not an object, a field missing or of
the wrong type, a case recorded twice) is skipped and counted, with the first few reasons
kept for the message; a record of a newer schema than this portbench reads is refused with
one sentence. Files are opened without following links, lines read within a size bound.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ResultsError
from .model import RECORD_SCHEMAS, CaseRecord, RecordInvalid, SessionLine
from .safeio import loads_strict, open_nofollow, read_bounded

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_LINE_BYTES",
    "ResultsRead",
    "read_document",
    "read_results",
    "read_sessions",
]

MAX_LINE_BYTES = 1 << 20
#: plan.json and env.json: a plan lists every case, an env every installed package.
MAX_DOCUMENT_BYTES = 64 << 20
PROBLEMS_KEPT = 5


@dataclass(frozen=True)
class ResultsRead:
    """What a results file held: its valid records, and how many lines were skipped and why."""

    records: tuple[CaseRecord, ...]
    skipped: int
    problems: tuple[str, ...]

    @property
    def recorded(self) -> frozenset[str]:
        return frozenset(r.case for r in self.records)

    def dicts(self) -> list[dict[str, Any]]:
        return [r.to_json() for r in self.records]

    def summary(self, path: Path) -> str:
        """One sentence on what was skipped, or '' if nothing was."""
        if not self.skipped:
            return ""
        return (
            f"{path}: {self.skipped} line(s) skipped as unreadable "
            f"({'; '.join(self.problems)}); their cases count as not recorded"
        )


@functools.cache
def _validator() -> Any:
    import jsonschema

    schema = json.loads(
        (Path(__file__).parent.parent / "schemas" / "record.schema.json").read_text()
    )
    return jsonschema.Draft202012Validator(schema)


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


def _newer(obj: Any) -> int | None:
    schema = obj.get("schema") if isinstance(obj, dict) else None
    if isinstance(schema, int) and schema > max(RECORD_SCHEMAS):
        return schema
    return None


def read_results(path: Path, validate: bool = True) -> ResultsRead:
    """The valid records of ``path`` (``results.jsonl``); a missing file holds none."""
    records: list[CaseRecord] = []
    seen: set[str] = set()
    skipped = 0
    problems: list[str] = []

    def skip(number: int, why: str) -> None:
        nonlocal skipped
        skipped += 1
        if len(problems) < PROBLEMS_KEPT:
            problems.append(f"line {number}: {why}")

    for number, line in _lines(path):
        if line is None:
            skip(number, f"longer than {MAX_LINE_BYTES} bytes")
            continue
        if not line.strip():
            continue
        try:
            obj = loads_strict(line)
        except (UnicodeDecodeError, ValueError):
            skip(number, "not JSON (cut short?)")
            continue
        newer = _newer(obj)
        if newer is not None:
            raise ResultsError(
                f"{path} holds records of schema {newer}, newer than this portbench reads "
                f"({max(RECORD_SCHEMAS)}); upgrade portbench to read them"
            )
        try:
            record = CaseRecord.from_json(obj)
        except RecordInvalid as exc:
            skip(number, str(exc))
            continue
        if validate:
            error = next(iter(_validator().iter_errors(obj)), None)
            if error is not None:
                skip(number, f"not a valid record ({error.message[:100]})")
                continue
        if record.case in seen:
            skip(number, f"{record.case} recorded twice (the first record is kept)")
            continue
        seen.add(record.case)
        records.append(record)
    return ResultsRead(tuple(records), skipped, tuple(problems))


def read_sessions(path: Path) -> tuple[list[SessionLine], int]:
    """Session lines of ``sessions.jsonl`` and how many lines were unreadable."""
    sessions: list[SessionLine] = []
    bad = 0
    for _number, line in _lines(path):
        if line is None:
            bad += 1
            continue
        if not line.strip():
            continue
        try:
            sessions.append(SessionLine.from_json(loads_strict(line)))
        except (UnicodeDecodeError, ValueError):
            bad += 1
    return sessions, bad


def read_document(path: Path, kind: str, schema_max: int = 1) -> dict[str, Any] | None:
    """``plan.json`` or ``env.json``: the object, or None if it is missing or unreadable.

    A document of a newer schema than ``schema_max`` is refused with one sentence.
    """
    try:
        data = loads_strict(read_bounded(path, MAX_DOCUMENT_BYTES))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError, ResultsError):
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
