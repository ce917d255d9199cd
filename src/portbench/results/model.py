"""The typed records of a cell: outcomes as enums, a case record and a session line, frozen.

Record schema history (``"schema"`` in each line of ``results.jsonl``):
  1 - first version.
  2 - written by the host from the supervisor's stream; adds ``evidence`` (where the work ran,
      bounded), ``output`` (bytes the case printed, and how many were not logged),
      ``strays_killed`` (processes the case left behind), ``timing.warm_s`` (the warm phase's
      seconds), the warm statistics' interval width
      and bounded samples (``ci95_rel``, ``stopped_by``, ``samples_ms``), the ``harness``
      category (imported study data only), and non-finite numbers written as strings
      ("NaN", "Infinity", "-Infinity") so every line is standard JSON. Later, still 2: the
      optional ``cpu_reference`` (off the CPU, the same case run on the framework's CPU in
      the same worker: its outcome, and whether and how far the outputs were compared).
Both are read; a newer schema is refused with one sentence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = [
    "MAX_SAMPLES",
    "RECORD_SCHEMAS",
    "CaseRecord",
    "Category",
    "ErrorInfo",
    "Outcome",
    "RecordInvalid",
    "SessionLine",
    "Stage",
    "Timing",
    "WarmTiming",
    "fallback_seen",
]

#: Record schemas this portbench reads (history in runners/portbench_runner/supervisor.py;
#: 3 adds the census fields ``source`` and ``census``).
RECORD_SCHEMAS = (1, 2, 3)
#: Warm samples kept per case (enough for a rank test between two runs).
MAX_SAMPLES = 1000


class RecordInvalid(ValueError):
    """A line that is not a valid record; the message says which field and why."""


class Outcome(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"


class Stage(str, Enum):
    SETUP = "setup"
    CALL = "call"
    CHECK = "check"


class Category(str, Enum):
    TYPE = "type"
    NOT_IMPLEMENTED = "not_implemented"
    PRECISION = "precision"
    MEMORY = "memory"
    TIMEOUT = "timeout"
    CRASH = "crash"
    FALLBACK = "fallback"
    OTHER = "other"
    HARNESS = "harness"
    """The study's own harness failed, not the framework (imported study data only)."""
    # Issue 33 (the lead reconciles these with issue 26's contract module at merge).
    PLACEMENT = "placement"
    """Forced placement onto a device with no kernel for the op (soft placement off)."""
    LOWERING = "lowering"
    """A compiler (XLA, inductor, torch_xla) could not translate the op."""
    REFUSAL = "refusal"
    """A documented refusal of a bad argument did not come, or came as another class."""


def _need(obj: Mapping[str, Any], key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise RecordInvalid(f"{where} lacks '{key}'")
    value = obj[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
        raise RecordInvalid(f"{where}: '{key}' has the wrong type ({type(value).__name__})")
    return value


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _opt(obj: Mapping[str, Any], key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    if obj.get(key) is None:
        return None
    return _need(obj, key, kinds, where)


_NAMED = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def number(value: Any, where: str) -> float:
    """A JSON number, or one of the names schema 2 writes for non-finite values."""
    if isinstance(value, str) and value in _NAMED:
        return _NAMED[value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RecordInvalid(f"{where} is not a number")
    return float(value)


def _enum(enum: type[Enum], value: Any, where: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        raise RecordInvalid(
            f"{where}: {str(value)[:40]!r} is not one of {[e.value for e in enum]}"
        ) from None


@dataclass(frozen=True)
class ErrorInfo:
    type: str
    message: str
    traceback: str

    @classmethod
    def from_json(cls, obj: Any) -> ErrorInfo | None:
        if obj is None:
            return None
        if not isinstance(obj, dict):
            raise RecordInvalid("'error' is not an object")
        return cls(
            str(obj.get("type", "")), str(obj.get("message", "")), str(obj.get("traceback", ""))
        )


@dataclass(frozen=True)
class WarmTiming:
    median_ms: float
    q1_ms: float
    q3_ms: float
    iqr_ms: float
    min_ms: float
    mean_ms: float
    samples: int
    calls_per_sample: int
    noisy: bool
    ci95_rel: float | None = None
    """Half-width of the median's 95% interval over the median (schema 2)."""
    stopped_by: str | None = None
    """Why sampling stopped: converged, budget, max_samples, max_time (schema 2)."""
    samples_ms: tuple[float, ...] = ()
    """Per-call times of the warm samples, at most MAX_SAMPLES (schema 2)."""

    @classmethod
    def from_json(cls, obj: Any) -> WarmTiming | None:
        if obj is None:
            return None
        if not isinstance(obj, dict):
            raise RecordInvalid("'timing.warm' is not an object")
        where = "timing.warm"
        samples = obj.get("samples_ms") or []
        if not isinstance(samples, list) or len(samples) > MAX_SAMPLES:
            raise RecordInvalid(f"{where}.samples_ms must be a list of at most {MAX_SAMPLES}")
        ci = obj.get("ci95_rel")
        return cls(
            median_ms=number(obj.get("median_ms"), f"{where}.median_ms"),
            q1_ms=number(obj.get("q1_ms"), f"{where}.q1_ms"),
            q3_ms=number(obj.get("q3_ms"), f"{where}.q3_ms"),
            iqr_ms=number(obj.get("iqr_ms"), f"{where}.iqr_ms"),
            min_ms=number(obj.get("min_ms"), f"{where}.min_ms"),
            mean_ms=number(obj.get("mean_ms"), f"{where}.mean_ms"),
            samples=int(_need(obj, "samples", int, where)),
            calls_per_sample=int(_need(obj, "calls_per_sample", int, where)),
            noisy=bool(_need(obj, "noisy", bool, where)),
            ci95_rel=None if ci is None else number(ci, f"{where}.ci95_rel"),
            stopped_by=_opt(obj, "stopped_by", str, where),
            samples_ms=tuple(number(v, f"{where}.samples_ms") for v in samples),
        )


@dataclass(frozen=True)
class Timing:
    cold_ms: float
    warm: WarmTiming | None
    warm_s: float | None = None
    """Seconds the warm phase took, calibration included (schema 2)."""
    warm_cap_s: float | None = None
    """The warm phase's cap under the cell's wall-time budget, when the plan had one (schema
    2, later); below the runner's minimum the case was timed cold only (``warm`` null)."""

    @classmethod
    def from_json(cls, obj: Any) -> Timing | None:
        if obj is None:
            return None
        if not isinstance(obj, dict):
            raise RecordInvalid("'timing' is not an object")
        warm_s, cap = obj.get("warm_s"), obj.get("warm_cap_s")
        return cls(
            number(obj.get("cold_ms"), "timing.cold_ms"),
            WarmTiming.from_json(obj.get("warm")),
            None if warm_s is None else number(warm_s, "timing.warm_s"),
            None if cap is None else number(cap, "timing.warm_cap_s"),
        )


@dataclass(frozen=True)
class CaseRecord:
    """One line of ``results.jsonl``: a case's outcome in one cell."""

    schema: int
    cell: str
    framework: str
    accelerator: str
    profile: str
    function: str
    study_test_file: str | None
    case: str
    case_name: str
    case_file: str
    seed: int
    outcome: Outcome
    stage: Stage | None
    category: Category | None
    rule: str | None
    reason: str | None
    error: ErrorInfo | None
    timing: Timing | None
    started_at: str
    duration_s: float
    rerun: str
    strays_killed: int = 0
    evidence: Mapping[str, Any] | None = None
    cpu_reference: Mapping[str, Any] | None = None
    """Off the CPU: the same case on the framework's CPU in the same worker (optional)."""
    source: Mapping[str, Any] | None = None
    """Census records: the database, its version and the entry the inputs came from."""
    census: Mapping[str, Any] | None = None
    """Census records: samples run, agreed and unchecked; the dtype declared or not."""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The line as read (schema-1 fields included), for readers that show every field."""

    @classmethod
    def from_json(cls, obj: Any) -> CaseRecord:
        if not isinstance(obj, dict):
            raise RecordInvalid(f"a record is a JSON object, not {type(obj).__name__}")
        if obj.get("kind") != "case":
            raise RecordInvalid("not a case record ('kind' is not 'case')")
        schema = obj.get("schema")
        if schema not in RECORD_SCHEMAS:
            raise RecordInvalid(f"record schema {str(schema)[:20]} is not one of {RECORD_SCHEMAS}")
        where = f"record {str(obj.get('case'))[:80]!r}"
        outcome = _enum(Outcome, obj.get("outcome"), f"{where}: outcome")
        stage = None if obj.get("stage") is None else _enum(Stage, obj["stage"], f"{where}: stage")
        category = (
            None
            if obj.get("category") is None
            else _enum(Category, obj["category"], f"{where}: category")
        )
        if outcome is Outcome.FAIL and (stage is None or category is None):
            raise RecordInvalid(f"{where}: a failure needs a stage and a category")
        if outcome is not Outcome.FAIL and category is not None:
            raise RecordInvalid(f"{where}: only a failure has a category")
        case = _need(obj, "case", str, where)
        if "::" not in case:
            raise RecordInvalid(f"{where}: a case id is '<function>::<name>'")
        evidence = obj.get("evidence")
        for key in ("evidence", "source", "census"):
            if obj.get(key) is not None and not isinstance(obj[key], dict):
                raise RecordInvalid(f"{where}: '{key}' is not an object")
        cpu_reference = obj.get("cpu_reference")
        if cpu_reference is not None and not (
            isinstance(cpu_reference, dict) and isinstance(cpu_reference.get("outcome"), str)
        ):
            raise RecordInvalid(f"{where}: 'cpu_reference' is not an object with an outcome")
        return cls(
            schema=int(schema),
            cell=_need(obj, "cell", str, where),
            framework=_need(obj, "framework", str, where),
            accelerator=_need(obj, "accelerator", str, where),
            profile=_need(obj, "profile", str, where),
            function=_need(obj, "function", str, where),
            study_test_file=_opt(obj, "study_test_file", str, where),
            case=case,
            case_name=_need(obj, "case_name", str, where),
            case_file=_need(obj, "case_file", str, where),
            seed=_need(obj, "seed", int, where),
            outcome=outcome,
            stage=stage,
            category=category,
            rule=_opt(obj, "rule", str, where),
            reason=_opt(obj, "reason", str, where),
            error=ErrorInfo.from_json(obj.get("error")),
            timing=Timing.from_json(obj.get("timing")),
            started_at=_need(obj, "started_at", str, where),
            duration_s=number(obj.get("duration_s"), f"{where}.duration_s"),
            rerun=_need(obj, "rerun", str, where),
            strays_killed=int(obj.get("strays_killed") or 0),
            evidence=evidence,
            cpu_reference=cpu_reference,
            source=obj.get("source"),
            census=obj.get("census"),
            raw=obj,
        )

    @property
    def fallback_marked(self) -> bool:
        """A probe saw this case's work run partly on the host (``evidence.fallback``)."""
        return fallback_seen(self.evidence)

    @property
    def fails_on_cpu(self) -> bool:
        """The case failed here and its CPU twin failed too: not this device's failure."""
        return (
            self.outcome is Outcome.FAIL
            and self.cpu_reference is not None
            and self.cpu_reference.get("outcome") == "fail"
        )

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (as read, with its fields checked)."""
        return dict(self.raw)


def fallback_seen(evidence: Any) -> bool:
    """True when evidence (a record's, as read) says the work ran partly on the host;
    unseen evidence (``fallback`` null) is not a fallback, and not a clean bill either."""
    return isinstance(evidence, Mapping) and evidence.get("fallback") is True


@dataclass(frozen=True)
class SessionLine:
    """One line of ``sessions.jsonl``: how one supervisor session ended."""

    status: str
    reason: str | None
    records_written: int
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, obj: Any) -> SessionLine:
        if not isinstance(obj, dict) or obj.get("kind") != "session":
            raise RecordInvalid("not a session line")
        status = obj.get("status")
        if status not in ("complete", "interrupted", "aborted"):
            raise RecordInvalid(f"session status {str(status)[:40]!r} is not known")
        reason = obj.get("reason")
        written = obj.get("records_written", 0)
        return cls(
            status=status,
            reason=reason if isinstance(reason, str) else None,
            records_written=written if isinstance(written, int) else 0,
            raw=obj,
        )

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw)
