"""A cell a node sent back, checked and written into the head's run directory.

The archive is unpacked into ``<run>/.incoming/`` (checked: :mod:`.archive`), then read as
the head reads any cell: the plan through ``read_plan``, the records through
``read_results`` (a line that does not read is a refusal: the node's own writer never
writes one), the session lines through ``read_sessions``. What lands goes through
``CellWriter``, the one writer of a cell's records: each record must be valid, of this cell,
in the plan, and first for its case, so a cell served twice (a retry after a node died, a
resume on another node) never holds a case twice. The first landing of a cell writes its
plan and its env.json, with the node's provenance added under ``node``; a later landing
(the cell resumed elsewhere) adds records, session lines and logs, and keeps both.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from portbench_runner.contract import (
    CaseRecord,
    EnvDocument,
    Integrity,
    IntegrityVerdict,
    JSONObject,
    NodeMark,
    Plan,
    SessionLine,
)

from ..plan import read_plan, write_plan
from ..results import CellWriter, RecordInvalid, read_env, read_results, read_sessions
from ..results.safeio import append_line, open_nofollow, write_new
from .archive import ArchiveRefused, unpack_checked
from .resources import is_node_name

__all__ = ["INCOMING", "Landed", "land_cell"]

INCOMING = ".incoming"
#: A task attempt as the head writes it (hex), or "x".
_ATTEMPT = re.compile(r"^(?:[0-9a-f]{1,64}|x)$")


@dataclass(frozen=True)
class Landed:
    cell_dir: Path
    new_records: int
    recorded: int
    planned: int
    complete: bool
    """Every planned case is recorded and the node's last session ended complete."""


@dataclass(frozen=True)
class _Parts:
    """What a node's archive holds, each read through the typed layer."""

    plan: Plan
    records: tuple[CaseRecord, ...]
    sessions: tuple[SessionLine, ...]
    env: EnvDocument | None


def _checked_parts(staged: Path, cell_id: str) -> _Parts:
    """Plan, records, session lines and env of a staged archive, read by the typed layer."""
    from ..errors import PlanError

    try:
        plan = read_plan(staged / "plan.json")
    except PlanError as exc:
        raise ArchiveRefused(f"the node's plan is not usable ({exc})") from None
    if plan.cell != cell_id:
        raise ArchiveRefused(f"the node sent the plan of {plan.cell[:80]!r}, not {cell_id}")
    read = read_results(staged / "results.jsonl")
    if read.skipped:
        raise ArchiveRefused(
            f"the node's records do not read: {read.summary(Path('results.jsonl'))}"
        )
    foreign = next((r.cell for r in read.records if r.cell != cell_id), None)
    if foreign is not None:
        raise ArchiveRefused(f"the node sent records of {foreign[:80]!r}, not {cell_id}")
    sessions, bad = read_sessions(staged / "sessions.jsonl")
    if bad:
        raise ArchiveRefused(f"{bad} session line(s) from the node do not read")
    return _Parts(plan, read.records, tuple(sessions), read_env(staged / "env.json"))


def _first_landing(cell_dir: Path, plan: Plan, env: EnvDocument | None, node: JSONObject) -> None:
    cell_dir.mkdir()
    write_plan(plan, cell_dir / "plan.json")
    if env is not None:
        write_new(cell_dir / "env.json", {**env.to_json(), "node": node})


def land_cell(run_dir: Path, cell_id: str, archive: bytes, node: JSONObject) -> Landed:
    """Check ``archive`` (from a node) and land it as ``run_dir``'s cell ``cell_id``.

    ``node`` is the provenance the head vouches for (what Ray says about the node, and what
    the node said about itself, marked as such). Raises :class:`ArchiveRefused` and lands
    nothing when a check fails.
    """
    dir_name = cell_id.replace("/", "-")
    incoming = run_dir / INCOMING
    incoming.mkdir(exist_ok=True)
    staged = incoming / f"{dir_name}-{secrets.token_hex(4)}"
    try:
        unpack_checked(archive, staged)
        parts = _checked_parts(staged, cell_id)
        cell_dir = run_dir / dir_name
        if cell_dir.exists():
            head_plan = read_plan(cell_dir / "plan.json")
            if head_plan.case_ids != parts.plan.case_ids:
                raise ArchiveRefused(
                    f"the node ran other cases of {cell_id} than the run planned; it was not landed"
                )
        else:
            _first_landing(cell_dir, parts.plan, parts.env, node)
            head_plan = parts.plan
        return _store(cell_dir, head_plan, parts, staged, node)
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def _store(cell_dir: Path, plan: Plan, parts: _Parts, staged: Path, node: JSONObject) -> Landed:
    new = 0
    with CellWriter(cell_dir, plan) as writer:
        for record in parts.records:
            if record.case in writer.recorded:
                continue  # landed before (the head's own copy, sent to resume from)
            try:
                writer.store_host_record(record)
            except RecordInvalid:
                continue  # not of this plan: dropped, as the writer drops any such line
            new += 1
        if writer.failure is not None:
            raise writer.failure
        name, node_id = node.get("name"), node.get("ray_node_id")
        where = NodeMark(
            name if isinstance(name, str) else None, node_id if isinstance(node_id, str) else None
        )
        fd = open_nofollow(writer.sessions_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            for line in _with_head_integrity(parts.sessions, writer.integrity()):
                append_line(fd, line.on_node(where).to_json(), writer.sessions_path)
        finally:
            os.close(fd)
        recorded = len(writer.recorded)
    _keep_logs(staged / "logs", cell_dir / "logs", node)
    planned = plan.case_count
    complete = bool(parts.sessions) and parts.sessions[-1].complete
    return Landed(cell_dir, new, recorded, planned, recorded >= planned and complete)


def _with_head_integrity(sessions: tuple[SessionLine, ...], head: Integrity) -> list[SessionLine]:
    """The node's session lines as the head keeps them: a verdict of ``tampered`` stays (the
    node found it); the node's ``intact`` hashes are of its own file, not the head's, so they
    go, and the last line carries the head's verdict on the head's file."""
    kept = [
        line
        if line.integrity is not None and line.integrity.verdict is IntegrityVerdict.TAMPERED
        else replace(line, integrity=None)
        for line in sessions
    ]
    if kept and not any(line.integrity is not None for line in kept):
        kept[-1] = replace(kept[-1], integrity=head)
    return kept


def _logs_folder_name(node: JSONObject) -> str:
    """``node-<name>-<attempt>``, from checked parts only: the name comes from a node, and a
    name is never a path (an unchecked one could hold ``/`` or ``..``)."""
    name = node.get("name")
    attempt = node.get("attempt")
    name = name if is_node_name(name) else "unknown"
    attempt = attempt if isinstance(attempt, str) and _ATTEMPT.match(attempt) else "x"
    return f"node-{name}-{attempt}"


def _keep_logs(logs: Path, into: Path, node: JSONObject) -> None:
    """Move a landed cell's logs under ``into``, beside those of earlier landings.

    The records are stored by now: a logs folder that cannot be moved is left out (it goes
    with the staging folder), never a reason to fail the landing.
    """
    if not logs.is_dir() or logs.is_symlink():
        return
    base = _logs_folder_name(node)
    try:
        into.mkdir(exist_ok=True)
        for n in range(100):
            target = into / (base if n == 0 else f"{base}.{n}")
            if not target.exists() and not target.is_symlink():
                os.rename(logs, target)
                return
    except OSError:
        return
