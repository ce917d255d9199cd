"""Whether a cell's records are the ones portbench wrote: the session line's ``integrity``.

On the host and venv backends a case runs as the user who runs portbench, so it can open
the cell's ``results.jsonl`` and rewrite a recorded ``fail`` as a valid ``pass``. Those
backends are not sealed, but they detect it. Threat model: a case running as the same user
as the host, without ptrace rights over it (the supervisor is non-dumpable; the host keeps
what it wrote only in its own memory). What it detects, it says; it cannot prevent it.

- During a session the host keeps a running sha256 of every byte of ``results.jsonl``: the
  file as it found it, then each record it appended. When the session ends (no case runs
  any more) it hashes the file again; any other writer shows as a difference, and the
  session line says ``tampered``. Otherwise it says ``intact`` with the file's sha256 and
  size.
- A later session first compares the file with the last ``intact`` line's hash (the bytes
  that session checked must still begin the file), so a change made between sessions is
  found too; a reader (``report``) does the same for a change made after the last session.
  A cell once found tampered stays so.

A case could also rewrite ``sessions.jsonl``; the host's session line is appended after the
case's worker is gone, and the verdicts of earlier lines are checked against the file each
session, so rewriting them shows as well unless every later line is forged consistently
with a file the case can no longer touch once its session ended.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from typing import Any

from portbench_runner.contract import Integrity, IntegrityVerdict, SessionLine

__all__ = ["Ledger", "digest_of", "intact_detail", "recorded_digest", "tampered_since"]

_DETAIL = re.compile(r"results\.jsonl sha256=([0-9a-f]{64}) bytes=(\d+)")
_CHUNK = 1 << 20


def digest_of(fd: int, limit: int | None = None) -> tuple[Any, int]:
    """A sha256 object over the file open at ``fd`` (its first ``limit`` bytes, where
    given), and the bytes read."""
    digest = hashlib.sha256()
    offset = 0
    while limit is None or offset < limit:
        want = _CHUNK if limit is None else min(_CHUNK, limit - offset)
        chunk = os.pread(fd, want, offset)
        if not chunk:
            break
        digest.update(chunk)
        offset += len(chunk)
    return digest, offset


def intact_detail(hexdigest: str, size: int) -> str:
    return f"results.jsonl sha256={hexdigest} bytes={size}"


def recorded_digest(sessions: Sequence[SessionLine]) -> tuple[str, int] | None:
    """The file's sha256 and size as the last session that checked it found them."""
    for line in reversed(sessions):
        integrity = line.integrity
        if integrity is None or integrity.verdict is not IntegrityVerdict.INTACT:
            continue
        match = _DETAIL.fullmatch(integrity.detail or "")
        if match:
            return match.group(1), int(match.group(2))
    return None


def tampered_since(sessions: Sequence[SessionLine], fd: int) -> str | None:
    """Why the cell's records (the file open at ``fd``) are not portbench's: a session found
    them changed, or the file does not begin with what the last checking session left (lines
    after it are a later session's that ended without its line, a killed host's, or damage
    the readers skip: appended, they change no record that stood); None when neither."""
    for line in sessions:
        if line.integrity is not None and line.integrity.verdict is IntegrityVerdict.TAMPERED:
            return line.integrity.detail or "a session found results.jsonl changed"
    recorded = recorded_digest(sessions)
    if recorded is None:
        return None
    digest, size = digest_of(fd, recorded[1])
    if (digest.hexdigest(), size) != recorded:
        return (
            "results.jsonl changed after its last session ended: its first "
            f"{recorded[1]} bytes are not the ones that session checked, not by portbench"
        )
    return None


class Ledger:
    """What this session knows ``results.jsonl`` must hold: the bytes it found and those it
    appended, as one running sha256."""

    def __init__(self, digest: Any, size: int) -> None:
        self._digest = digest
        self.size = size

    def appended(self, data: bytes) -> None:
        self._digest.update(data)
        self.size += len(data)

    def verdict(self, fd: int, before: str | None) -> Integrity:
        """The session's verdict, from the file as it is now (``before``: a change found
        when the session began)."""
        found, size = digest_of(fd)
        if before is not None:
            return Integrity(IntegrityVerdict.TAMPERED, before[:900])
        if (found.hexdigest(), size) != (self._digest.hexdigest(), self.size):
            return Integrity(
                IntegrityVerdict.TAMPERED,
                f"results.jsonl changed while the session ran, not by portbench ({size} bytes "
                f"found, {self.size} written)",
            )
        return Integrity(IntegrityVerdict.INTACT, intact_detail(found.hexdigest(), size))
