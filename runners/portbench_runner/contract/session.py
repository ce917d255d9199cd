"""How one session of a cell ended: the supervisor's account, completed by the host.

Session schema history (``sessions.jsonl``, one line per session, appended when it ends):
  1 - first version, written by the in-cell supervisor.
  2 - written by the host: adds ``protocol_violations``, ``strays_killed`` (the supervisor's
      counts), ``rejected_lines`` and ``rejected_reasons`` (lines of the cell's stream the
      host refused), ``exit_status`` (the supervisor's).
  3 - optional ``superseded`` (host records of a dead supervisor's case that this session's
      records replaced), ``node`` (the Ray node a landed session ran on) and ``integrity``
      (whether the cell's records are those its supervisor sent; issue 27 fills it in).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Tuple

from .enums import IntegrityVerdict, SessionStatus
from .fields import Fields, JSONObject, RecordInvalid

__all__ = ["SESSION_SCHEMA", "SESSION_SCHEMAS", "Integrity", "NodeMark", "SessionLine"]

SESSION_SCHEMA = 3
SESSION_SCHEMAS = (1, 2, 3)
REASON_CHARS = 4000


@dataclass(frozen=True)
class Integrity:
    """A verdict on a cell's records (issue 27): unchecked, intact or tampered, and why."""

    verdict: IntegrityVerdict
    detail: Optional[str] = None

    @classmethod
    def from_json(cls, value: object, where: str) -> Integrity:
        f = Fields(value, where, RecordInvalid)
        return cls(f.enum("verdict", IntegrityVerdict), f.opt_text("detail", REASON_CHARS))

    def to_json(self) -> JSONObject:
        return {"verdict": self.verdict.value, "detail": self.detail}


@dataclass(frozen=True)
class NodeMark:
    """The cluster node a landed session ran on, as the head knows it."""

    name: Optional[str]
    ray_node_id: Optional[str] = None

    @classmethod
    def from_json(cls, value: object, where: str) -> NodeMark:
        f = Fields(value, where, RecordInvalid)
        return cls(f.opt_text("name", 200), f.opt_text("ray_node_id", 200))

    def to_json(self) -> JSONObject:
        return {"name": self.name, "ray_node_id": self.ray_node_id}


def _count(f: Fields, key: str) -> int:
    value = f.raw(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


@dataclass(frozen=True)
class SessionLine:
    """One line of ``sessions.jsonl`` (or the supervisor's ``session`` message, which the
    host completes with what it saw)."""

    cell: str
    status: SessionStatus
    reason: Optional[str]
    started_at: Optional[str] = None
    ended_at: Optional[str] = None
    records_written: int = 0
    restarts: int = 0
    skipped_already_recorded: int = 0
    protocol_violations: int = 0
    strays_killed: int = 0
    # What the host adds (schema 2 on):
    index: Optional[int] = None
    rejected_lines: Optional[int] = None
    rejected_reasons: Tuple[str, ...] = ()
    truncated_lines: Optional[int] = None
    exit_status: Optional[int] = None
    superseded: Optional[int] = None
    node: Optional[NodeMark] = None
    integrity: Optional[Integrity] = None
    schema: int = SESSION_SCHEMA

    @classmethod
    def from_json(cls, obj: object) -> SessionLine:
        if not isinstance(obj, dict) or obj.get("kind") != "session":
            raise RecordInvalid("not a session line")
        f = Fields(obj, "a session line", RecordInvalid)
        schema = f.integer("schema") if "schema" in obj else 1
        if schema not in SESSION_SCHEMAS:
            raise RecordInvalid(f"session schema {schema} is not one of {SESSION_SCHEMAS}")
        reasons = obj.get("rejected_reasons")
        exit_status = obj.get("exit_status")
        return cls(
            cell=f.opt_text("cell") or "",
            status=f.enum("status", SessionStatus),
            reason=f.opt_text("reason", REASON_CHARS),
            started_at=f.opt_text("started_at", 64),
            ended_at=f.opt_text("ended_at", 64),
            records_written=_count(f, "records_written"),
            restarts=_count(f, "restarts"),
            skipped_already_recorded=_count(f, "skipped_already_recorded"),
            protocol_violations=_count(f, "protocol_violations"),
            strays_killed=_count(f, "strays_killed"),
            index=f.opt_integer("index", 0),
            rejected_lines=f.opt_integer("rejected_lines", 0),
            rejected_reasons=tuple(str(r)[:200] for r in reasons[:5])
            if isinstance(reasons, list)
            else (),
            truncated_lines=f.opt_integer("truncated_lines", 0),
            exit_status=exit_status
            if isinstance(exit_status, int) and not isinstance(exit_status, bool)
            else None,
            superseded=f.opt_integer("superseded", 0),
            node=f.opt("node", NodeMark.from_json),
            integrity=f.opt("integrity", Integrity.from_json),
            schema=schema,
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "schema": self.schema,
            "kind": "session",
            "cell": self.cell,
            "status": self.status.value,
            "reason": self.reason,
            "records_written": self.records_written,
            "restarts": self.restarts,
            "skipped_already_recorded": self.skipped_already_recorded,
            "protocol_violations": self.protocol_violations,
            "strays_killed": self.strays_killed,
        }
        for key, value in (
            ("started_at", self.started_at),
            ("ended_at", self.ended_at),
            ("index", self.index),
            ("rejected_lines", self.rejected_lines),
            ("truncated_lines", self.truncated_lines),
            ("exit_status", self.exit_status),
            ("superseded", self.superseded),
        ):
            if value is not None:
                out[key] = value
        if self.rejected_lines is not None:
            out["rejected_reasons"] = list(self.rejected_reasons)
        if self.node is not None:
            out["node"] = self.node.to_json()
        if self.integrity is not None:
            out["integrity"] = self.integrity.to_json()
        return out

    def on_node(self, node: NodeMark) -> SessionLine:
        return replace(self, node=node)

    @property
    def complete(self) -> bool:
        return self.status is SessionStatus.COMPLETE
