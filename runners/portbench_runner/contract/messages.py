"""The two message protocols of a cell, both one strict-JSON object per line.

Worker <-> supervisor (inside the cell). The supervisor asks for one case at a time on the
worker's stdin; the worker answers on a dedicated pipe, never on stdout or stderr (frameworks
log there). A case runs in the worker's process and can write to that pipe too, so the
supervisor checks every message against the case it asked for (``supervisor.py``).

  supervisor -> worker:  ``run`` (case, warm cap), ``stop``
  worker -> supervisor:  ``hello`` (pid, env facts, Python, NumPy), ``fatal`` (message),
                         ``start`` (case), ``stage`` (case, stage), ``result`` (case,
                         outcome), ``bye``

Supervisor -> host (the cell's stdout; the host is the only writer of the records):

  ``env`` (env.json), ``start`` (case), ``finished`` (case: its result is in, its record may
  follow later), ``record`` (a case record), ``session`` (how the session ended)

``start`` and ``finished`` tell the host which case a supervisor is running, and so which
case to record if the supervisor itself dies (and none other: between ``finished`` and the
next ``start`` no case is in flight).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Type, Union

from .bounds import MAX_CASE_ID_CHARS, MESSAGE_CHARS, clip
from .enums import MessageType, Stage
from .env import EnvDocument
from .factory import result_from_worker
from .fields import Fields, JSONObject, MessageInvalid
from .jsonline import LINE, LineRefused, dump_line, read_json
from .records import CaseRecord, CaseResult
from .session import SessionLine

__all__ = [
    "COMMANDS",
    "HOST_MESSAGES",
    "WORKER_MESSAGES",
    "Bye",
    "EnvMessage",
    "Fatal",
    "Finished",
    "Hello",
    "Message",
    "RecordMessage",
    "Result",
    "Run",
    "SessionMessage",
    "StageReached",
    "Start",
    "Stop",
    "decode",
    "encode",
]


def _case(f: Fields) -> str:
    return f.text("case", MAX_CASE_ID_CHARS)


@dataclass(frozen=True)
class Hello:
    """A worker is ready: its pid, the env facts it collected (first worker only), and the
    Python and NumPy versions it runs (for each record's provenance)."""

    pid: int
    env: Optional[JSONObject] = None
    python: Optional[str] = None
    numpy: Optional[str] = None
    type = MessageType.HELLO

    @classmethod
    def from_json(cls, f: Fields) -> Hello:
        env = f.raw("env")
        return cls(
            f.integer("pid"),
            env if isinstance(env, dict) else None,
            f.opt_text("python", 80),
            f.opt_text("numpy", 80),
        )

    def to_json(self) -> JSONObject:
        return {
            "type": self.type.value,
            "pid": self.pid,
            "env": self.env,
            "python": self.python,
            "numpy": self.numpy,
        }


@dataclass(frozen=True)
class Fatal:
    """The worker cannot run any case here (the framework does not load, no device)."""

    message: str
    type = MessageType.FATAL

    @classmethod
    def from_json(cls, f: Fields) -> Fatal:
        return cls(clip(str(f.raw("message")), MESSAGE_CHARS))

    def to_json(self) -> JSONObject:
        return {"type": self.type.value, "message": self.message}


@dataclass(frozen=True)
class Start:
    """A case began (worker -> supervisor, then supervisor -> host)."""

    case: str
    type = MessageType.START

    @classmethod
    def from_json(cls, f: Fields) -> Start:
        return cls(_case(f))

    def to_json(self) -> JSONObject:
        return {"type": self.type.value, "case": self.case}


@dataclass(frozen=True)
class StageReached:
    case: str
    stage: Stage
    type = MessageType.STAGE

    @classmethod
    def from_json(cls, f: Fields) -> StageReached:
        return cls(_case(f), f.enum("stage", Stage))

    def to_json(self) -> JSONObject:
        return {"type": self.type.value, "case": self.case, "stage": self.stage.value}


@dataclass(frozen=True)
class Result:
    """A case's result. Read leniently: a malformed outcome becomes an ``error`` result
    that says what was wrong (the case's own code may have written it)."""

    case: str
    result: CaseResult
    type = MessageType.RESULT

    @classmethod
    def from_json(cls, f: Fields) -> Result:
        return cls(_case(f), result_from_worker(f.raw("outcome")))

    def to_json(self) -> JSONObject:
        return {"type": self.type.value, "case": self.case, "outcome": self.result.to_json()}


@dataclass(frozen=True)
class Bye:
    type = MessageType.BYE

    @classmethod
    def from_json(cls, f: Fields) -> Bye:
        return cls()

    def to_json(self) -> JSONObject:
        return {"type": self.type.value}


@dataclass(frozen=True)
class Run:
    """Run one case; ``warm_cap_s`` caps its warm timing under a cell budget."""

    case: str
    warm_cap_s: Optional[float] = None
    type = MessageType.RUN

    @classmethod
    def from_json(cls, f: Fields) -> Run:
        return cls(_case(f), f.opt_number("warm_cap_s", nonneg=True))

    def to_json(self) -> JSONObject:
        out: JSONObject = {"type": self.type.value, "case": self.case}
        if self.warm_cap_s is not None:
            out["warm_cap_s"] = round(self.warm_cap_s, 4)
        return out


@dataclass(frozen=True)
class Stop:
    type = MessageType.STOP

    @classmethod
    def from_json(cls, f: Fields) -> Stop:
        return cls()

    def to_json(self) -> JSONObject:
        return {"type": self.type.value}


@dataclass(frozen=True)
class EnvMessage:
    env: EnvDocument
    type = MessageType.ENV

    @classmethod
    def from_json(cls, f: Fields) -> EnvMessage:
        return cls(EnvDocument.from_json(f.raw("env"), "the cell's env"))

    def to_json(self) -> JSONObject:
        return {"type": self.type.value, "env": self.env.to_json()}


@dataclass(frozen=True)
class Finished:
    """A case's result is in (its record follows when the worker moves on)."""

    case: str
    type = MessageType.FINISHED

    @classmethod
    def from_json(cls, f: Fields) -> Finished:
        return cls(_case(f))

    def to_json(self) -> JSONObject:
        return {"type": self.type.value, "case": self.case}


@dataclass(frozen=True)
class RecordMessage:
    record: CaseRecord
    type = MessageType.RECORD

    @classmethod
    def from_json(cls, f: Fields) -> RecordMessage:
        return cls(CaseRecord.from_json(f.raw("record"), kind=None))

    def to_json(self) -> JSONObject:
        return {"type": self.type.value, "record": self.record.to_json()}


@dataclass(frozen=True)
class SessionMessage:
    session: SessionLine
    type = MessageType.SESSION

    @classmethod
    def from_json(cls, f: Fields) -> SessionMessage:
        return cls(SessionLine.from_json(f.raw("session")))

    def to_json(self) -> JSONObject:
        return {"type": self.type.value, "session": self.session.to_json()}


Message = Union[
    Hello,
    Fatal,
    Start,
    StageReached,
    Result,
    Bye,
    Run,
    Stop,
    EnvMessage,
    Finished,
    RecordMessage,
    SessionMessage,
]
_CLASSES: Dict[MessageType, Type[Message]] = {
    cls.type: cls
    for cls in (
        Hello,
        Fatal,
        Start,
        StageReached,
        Result,
        Bye,
        Run,
        Stop,
        EnvMessage,
        Finished,
        RecordMessage,
        SessionMessage,
    )
}
M = MessageType
WORKER_MESSAGES: FrozenSet[MessageType] = frozenset(
    (M.HELLO, M.FATAL, M.START, M.STAGE, M.RESULT, M.BYE)
)
COMMANDS: FrozenSet[MessageType] = frozenset((M.RUN, M.STOP))
HOST_MESSAGES: FrozenSet[MessageType] = frozenset((M.ENV, M.START, M.FINISHED, M.RECORD, M.SESSION))


def encode(message: Message) -> bytes:
    """One line of strict JSON; ``ValueError`` for what JSON cannot hold."""
    return dump_line(message.to_json())


def decode(line: bytes, allowed: FrozenSet[MessageType]) -> Message:
    """The message ``line`` holds, if it is one of ``allowed``; otherwise
    :class:`MessageInvalid` (or the record's :class:`RecordInvalid`) saying what is wrong."""
    try:
        obj = read_json(line, LINE)
    except LineRefused as exc:
        raise MessageInvalid(f"garbage: {exc}") from None
    if not isinstance(obj, dict):
        raise MessageInvalid(f"garbage: a JSON {type(obj).__name__}, not an object")
    kind = obj.get("type")
    try:
        message_type = MessageType(kind)
    except ValueError:
        raise MessageInvalid(f"an unknown message type {str(kind)[:40]!r}") from None
    if message_type not in allowed:
        raise MessageInvalid(f"a {message_type.value!r} message, which this side never gets")
    f = Fields(obj, f"a {message_type.value!r} message", MessageInvalid)
    return _CLASSES[message_type].from_json(f)
