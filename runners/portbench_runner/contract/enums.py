"""The closed vocabularies of a cell: outcomes, stages, categories, phases, kinds.

Each is a ``str`` enum, so JSON stays readable (``"pass"``, not ``0``) and a value read from a
line is checked by constructing the enum. ``str()`` and f-strings give the value on every
Python the runner supports (3.11 changed the default for mixed-in enums to ``Class.MEMBER``).
"""

from __future__ import annotations

from enum import Enum
from typing import Tuple, Type, TypeVar

__all__ = [
    "CATEGORIES",
    "STAGES",
    "Category",
    "EvidenceKind",
    "FallbackMode",
    "IntegrityVerdict",
    "MessageType",
    "Outcome",
    "Phase",
    "PredictionControl",
    "PredictionMethod",
    "PredictionVerdict",
    "RecordKind",
    "RecordedBy",
    "SessionStatus",
    "Stage",
    "StrEnum",
    "TimingMode",
    "values",
]

E = TypeVar("E", bound=Enum)


class StrEnum(str, Enum):
    """A string-valued enum whose ``str()`` is its value on every Python."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


def values(enum: Type[E]) -> Tuple[str, ...]:
    """The JSON values of ``enum``, in declaration order."""
    return tuple(str(member.value) for member in enum)


class Outcome(StrEnum):
    """A case's outcome in one cell."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    """The case does not apply to this profile or device (the record says why)."""
    ERROR = "error"
    """The case itself is broken: a bug of ours, never counted against the framework."""


class Stage(StrEnum):
    """Where a failed case was when it failed."""

    SETUP = "setup"
    CALL = "call"
    CHECK = "check"


class Category(StrEnum):
    """Why a case failed; rules (data per framework) choose one, ``other`` when none matches."""

    TYPE = "type"
    NOT_IMPLEMENTED = "not_implemented"
    PRECISION = "precision"
    MEMORY = "memory"
    TIMEOUT = "timeout"
    CRASH = "crash"
    FALLBACK = "fallback"
    PLACEMENT = "placement"
    """Forced onto a device that has no kernel for the op (soft placement off)."""
    LOWERING = "lowering"
    """A compiler (XLA, inductor, torch_xla) could not translate the op."""
    REFUSAL = "refusal"
    """A documented refusal of a bad argument did not come, or came as another class."""
    OTHER = "other"
    """No rule explains the failure: listed for curation."""
    HARNESS = "harness"
    """The study's own harness failed, not the framework (imported study data only)."""


#: Categories a cell may give (rules, ``ctx.check``); ``harness`` is for imported study data.
CATEGORIES = tuple(c.value for c in Category if c is not Category.HARNESS)
STAGES = values(Stage)


class Phase(StrEnum):
    """Where a worker is in the supervisor's exchange with it (one phase at a time)."""

    STARTING = "starting"
    """Spawned; its ``hello`` (or ``fatal``) is awaited."""
    ASKED = "asked"
    """A ``run`` was sent; the case's ``start`` is awaited."""
    RUNNING = "running"
    """The case started; ``stage`` messages and its ``result`` are awaited."""
    STOPPING = "stopping"
    """``stop`` was sent; ``bye`` is awaited."""


class EvidenceKind(StrEnum):
    """How a record knows what it says. Kinds are never merged or counted as one another."""

    OBSERVED = "observed"
    """The case ran on the device (every record before record schema 4)."""
    PREDICTED = "predicted"
    """What the target would do, learned without it (lowered for it, XLA's CPU client)."""
    DECLARED = "declared"
    """A kernel registry or dispatcher says so."""


class PredictionMethod(StrEnum):
    """How a predicted or declared record learned what it says."""

    LOWERED = "lowered"
    XLA_CPU = "xla_cpu"
    DECLARED_KERNEL = "declared_kernel"
    DISPATCHER = "dispatcher"

    @property
    def evidence_kind(self) -> EvidenceKind:
        if self in (PredictionMethod.DECLARED_KERNEL, PredictionMethod.DISPATCHER):
            return EvidenceKind.DECLARED
        return EvidenceKind.PREDICTED


class PredictionVerdict(StrEnum):
    """What a predicted or declared record predicts of its case on the target."""

    PASS = "pass"
    """Lowers (or runs on XLA's CPU client) with no host work: never "passes its check"."""
    FAIL = "fail"
    """The target refuses the call (no lowering, no kernel) or would run part on the host."""
    NOT_PREDICTABLE = "not_predictable"
    """The CPU control fails, or the look cannot be made on this machine."""


class PredictionControl(StrEnum):
    """How a predicted cell's CPU control runs (the plan's ``prediction.control``)."""

    CPU_RUN = "cpu_run"
    """The case runs on the CPU (the control) and the look at the target predicts."""
    CPU_TWIN = "cpu_twin"
    """The case runs on XLA's CPU client (the prediction) and its CPU twin is the control."""


class RecordKind(StrEnum):
    """What a line of ``results.jsonl`` is; a reader reads one kind and skips the others."""

    CASE = "case"
    """A case's outcome in a cell portbench ran (bench, census, rerun)."""
    MUTANT = "mutant"
    """A case run against a mutant of its measured call (a mutation run): never a result."""
    STUDY = "study"
    """A sub-test of the study's published results (imported)."""


class RecordedBy(StrEnum):
    """Who made a record: the in-cell supervisor, or the host for a supervisor that died."""

    SUPERVISOR = "supervisor"
    HOST = "host"


class SessionStatus(StrEnum):
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    ABORTED = "aborted"


class TimingMode(StrEnum):
    """How warm calls are sampled (the plan's ``timing.mode``)."""

    ADAPTIVE = "adaptive"
    FIXED = "fixed"
    NONE = "none"
    """No warm timing: outcomes and cold calls only (``--no-timing``)."""


class FallbackMode(StrEnum):
    MARK = "mark"
    """A case whose work ran partly on the host passes with a mark in its evidence."""
    FAIL = "fail"
    """Such a case fails as ``fallback``."""


class IntegrityVerdict(StrEnum):
    """Whether a cell's records are those its supervisor sent (issue 27 fills this in)."""

    UNCHECKED = "unchecked"
    INTACT = "intact"
    TAMPERED = "tampered"


class MessageType(StrEnum):
    """Every message of the two protocols (``messages.py``)."""

    # worker -> supervisor
    HELLO = "hello"
    FATAL = "fatal"
    START = "start"
    STAGE = "stage"
    RESULT = "result"
    BYE = "bye"
    # supervisor -> worker
    RUN = "run"
    STOP = "stop"
    # supervisor -> host (``start`` too)
    ENV = "env"
    FINISHED = "finished"
    RECORD = "record"
    SESSION = "session"
