"""The parts of a case record: error, timing, exit, output, worker, evidence, the CPU twin,
census facts, provenance, prediction and mutant. Each is frozen, read by ``from_json`` (which
refuses what the published schema refuses) and written by ``to_json``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Tuple, Union

from .bounds import MAX_SAMPLES
from .enums import Outcome, Stage
from .fields import Fields, JSONObject, JSONScalar, RecordInvalid, json_number

__all__ = [
    "CensusResult",
    "CensusSource",
    "CpuReference",
    "ErrorInfo",
    "Evidence",
    "ExitInfo",
    "HostWork",
    "OutputInfo",
    "Timing",
    "WarmTiming",
    "WorkerInfo",
]

# What a reader accepts (the published schema's bounds: a writer clips well below them,
# and a clipped text carries a short "[N characters cut]" prefix).
READ_MESSAGE_CHARS = 8192
READ_TRACEBACK_CHARS = 16384
READ_REASON_CHARS = 4000
STOPPED_BY = ("converged", "budget", "max_samples", "max_time")
CENSUS_CHECKS = ("reference", "cpu", "none")


def _keys(*names: str) -> FrozenSet[str]:
    return frozenset(names)


def _put(out: JSONObject, key: str, value: object) -> None:
    """Set ``key`` only when ``value`` is not None: optional fields stay absent."""
    if value is not None:
        out[key] = value


def _opt_number(value: Optional[float]) -> Union[float, str, None]:
    return None if value is None else json_number(value)


@dataclass(frozen=True)
class ErrorInfo:
    """The exception a case ended with: type, message and trimmed traceback."""

    type: str
    message: str
    traceback: str = ""

    KEYS = _keys("type", "message", "traceback")

    @classmethod
    def from_json(cls, value: object, where: str) -> ErrorInfo:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        return cls(
            f.text("type"),
            f.text("message", READ_MESSAGE_CHARS),
            f.text("traceback", READ_TRACEBACK_CHARS),
        )

    def to_json(self) -> JSONObject:
        return {"type": self.type, "message": self.message, "traceback": self.traceback}


@dataclass(frozen=True)
class WarmTiming:
    """Warm statistics of the per-call times (ms) after warm-up."""

    median_ms: float
    q1_ms: float
    q3_ms: float
    iqr_ms: float
    min_ms: float
    mean_ms: float
    samples: int
    calls_per_sample: int
    noisy: bool
    ci95_rel: Optional[float] = None
    """Half-width of the median's 95% interval over the median (schema 2)."""
    stopped_by: Optional[str] = None
    """Why sampling stopped: converged, budget, max_samples, max_time (schema 2)."""
    samples_ms: Tuple[float, ...] = ()
    """Per-call times of the warm samples, at most MAX_SAMPLES (schema 2)."""

    KEYS = _keys(
        "median_ms",
        "q1_ms",
        "q3_ms",
        "iqr_ms",
        "min_ms",
        "mean_ms",
        "samples",
        "calls_per_sample",
        "noisy",
        "ci95_rel",
        "stopped_by",
        "samples_ms",
    )

    @classmethod
    def from_json(cls, value: object, where: str) -> WarmTiming:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        stopped_by = f.opt_text("stopped_by")
        if stopped_by is not None and stopped_by not in STOPPED_BY:
            raise f.fail(f"'stopped_by' is {stopped_by[:40]!r}, not one of {STOPPED_BY}")
        return cls(
            median_ms=f.number("median_ms", nonneg=True),
            q1_ms=f.number("q1_ms"),
            q3_ms=f.number("q3_ms"),
            iqr_ms=f.number("iqr_ms", nonneg=True),
            min_ms=f.number("min_ms", nonneg=True),
            mean_ms=f.number("mean_ms", nonneg=True),
            samples=f.integer("samples", minimum=1),
            calls_per_sample=f.integer("calls_per_sample", minimum=1),
            noisy=f.flag("noisy"),
            ci95_rel=f.opt_number("ci95_rel", nonneg=True),
            stopped_by=stopped_by,
            samples_ms=f.numbers("samples_ms", MAX_SAMPLES, nonneg=True)
            if "samples_ms" in f.obj
            else (),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "median_ms": json_number(self.median_ms),
            "q1_ms": json_number(self.q1_ms),
            "q3_ms": json_number(self.q3_ms),
            "iqr_ms": json_number(self.iqr_ms),
            "min_ms": json_number(self.min_ms),
            "mean_ms": json_number(self.mean_ms),
            "samples": self.samples,
            "calls_per_sample": self.calls_per_sample,
            "noisy": self.noisy,
        }
        _put(out, "ci95_rel", _opt_number(self.ci95_rel))
        _put(out, "stopped_by", self.stopped_by)
        if self.samples_ms:
            samples = self.samples_ms
            finite = math.isfinite(min(samples)) and math.isfinite(max(samples))
            out["samples_ms"] = list(samples) if finite else [json_number(v) for v in samples]
        return out


@dataclass(frozen=True)
class Timing:
    """A case's cold first call and, unless it was timed cold only, its warm statistics."""

    cold_ms: float
    warm: Optional[WarmTiming] = None
    warm_s: Optional[float] = None
    """Seconds the warm phase took, calibration included (schema 2)."""
    warm_cap_s: Optional[float] = None
    """The warm phase's cap under the cell's wall-time budget (schema 2, later); below the
    runner's minimum the case was timed cold only (``warm`` null)."""
    mode: Optional[str] = None
    """The timing mode the case ran under (schema 4; absent: the plan's, adaptive)."""

    KEYS = _keys("cold_ms", "warm", "warm_s", "warm_cap_s", "mode")

    @classmethod
    def from_json(cls, value: object, where: str) -> Timing:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        if "warm" not in f.obj:
            raise f.fail("'warm' is missing")
        return cls(
            cold_ms=f.number("cold_ms", nonneg=True),
            warm=f.opt("warm", WarmTiming.from_json),
            warm_s=f.opt_number("warm_s", nonneg=True),
            warm_cap_s=f.opt_number("warm_cap_s", nonneg=True),
            mode=f.opt_text("mode", 40),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "cold_ms": json_number(self.cold_ms),
            "warm": None if self.warm is None else self.warm.to_json(),
        }
        _put(out, "warm_s", _opt_number(self.warm_s))
        _put(out, "warm_cap_s", _opt_number(self.warm_cap_s))
        _put(out, "mode", self.mode)
        return out


@dataclass(frozen=True)
class ExitInfo:
    """How a worker process ended (a crashed case)."""

    code: Optional[int]
    signal: Optional[str]
    oom_killed: Optional[bool] = None

    KEYS = _keys("code", "signal", "oom_killed")

    @classmethod
    def from_json(cls, value: object, where: str) -> ExitInfo:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        for key in ("code", "signal"):
            if key not in f.obj:
                raise f.fail(f"'{key}' is missing")
        return cls(f.opt_integer("code"), f.opt_text("signal", 40), f.opt_flag("oom_killed"))

    def to_json(self) -> JSONObject:
        out: JSONObject = {"code": self.code, "signal": self.signal}
        _put(out, "oom_killed", self.oom_killed)
        return out


@dataclass(frozen=True)
class OutputInfo:
    """Bytes a case printed, and how many of them were not logged."""

    bytes: int
    dropped_bytes: int

    KEYS = _keys("bytes", "dropped_bytes")

    @classmethod
    def from_json(cls, value: object, where: str) -> OutputInfo:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        return cls(f.integer("bytes", 0), f.integer("dropped_bytes", 0))

    def to_json(self) -> JSONObject:
        return {"bytes": self.bytes, "dropped_bytes": self.dropped_bytes}


@dataclass(frozen=True)
class WorkerInfo:
    """The worker process a case ran in: its pid (None: no worker, e.g. a host record) and
    its index among the session's workers."""

    pid: Optional[int]
    index: int

    @classmethod
    def from_json(cls, value: object, where: str) -> WorkerInfo:
        f = Fields(value, where, RecordInvalid)
        if "pid" not in f.obj:
            raise f.fail("'pid' is missing")
        return cls(f.opt_integer("pid"), f.integer("index", 0))

    def to_json(self) -> JSONObject:
        return {"pid": self.pid, "index": self.index}


@dataclass(frozen=True)
class HostWork:
    """One sign of work that ran on the host during the measured call."""

    kind: str
    what: str

    @classmethod
    def from_json(cls, value: object, where: str) -> HostWork:
        f = Fields(value, where, RecordInvalid, _keys("kind", "what"))
        return cls(f.text("kind", 80), f.text("what", 240))

    def to_json(self) -> JSONObject:
        return {"kind": self.kind, "what": self.what}


@dataclass(frozen=True)
class Evidence:
    """Where the measured call's work ran: which probe looked, for which platform, whether
    it could (``seen``), the host work it found (bounded) and whether that is a fallback
    (None: not seen). ``extra`` holds the small scalar facts a probe adds."""

    probe: Optional[str] = None
    platform: Optional[str] = None
    seen: Optional[bool] = None
    fallback: Optional[bool] = None
    host_work: Tuple[HostWork, ...] = ()
    host_work_dropped: Optional[int] = None
    note: Optional[str] = None
    extra: Dict[str, JSONScalar] = field(default_factory=dict)

    KNOWN = ("probe", "platform", "seen", "fallback", "host_work", "host_work_dropped", "note")
    MAX_KEYS = 64

    @classmethod
    def from_json(cls, value: object, where: str) -> Evidence:
        f = Fields(value, where, RecordInvalid)
        if len(f.obj) > cls.MAX_KEYS:
            raise f.fail(f"evidence holds {len(f.obj)} keys, over {cls.MAX_KEYS}")
        extra: Dict[str, JSONScalar] = {}
        for key, item in f.obj.items():
            if key in cls.KNOWN:
                continue
            if item is not None and not isinstance(item, (str, int, float, bool)):
                raise f.fail(f"'{key[:40]}' is not a string, number or boolean")
            if isinstance(item, float) and not math.isfinite(item):
                raise f.fail(f"'{key[:40]}' is not a finite number")
            extra[key] = item
        work = f.items("host_work", 16) if "host_work" in f.obj else []
        return cls(
            probe=f.opt_text("probe"),
            platform=f.opt_text("platform"),
            seen=f.opt_flag("seen"),
            fallback=f.opt_flag("fallback"),
            host_work=tuple(HostWork.from_json(item, f"{where}.host_work") for item in work),
            host_work_dropped=f.opt_integer("host_work_dropped", 0),
            note=f.opt_text("note", 600),
            extra=extra,
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = dict(self.extra)
        _put(out, "probe", self.probe)
        _put(out, "platform", self.platform)
        _put(out, "seen", self.seen)
        out["fallback"] = self.fallback
        out["host_work"] = [item.to_json() for item in self.host_work]
        _put(out, "host_work_dropped", self.host_work_dropped)
        _put(out, "note", self.note)
        return out


@dataclass(frozen=True)
class CpuReference:
    """Off the CPU: the same case on the framework's CPU in the same worker."""

    outcome: Outcome
    stage: Optional[Stage] = None
    category: Optional[str] = None
    message: Optional[str] = None
    reason: Optional[str] = None
    compared: Optional[bool] = None
    note: Optional[str] = None
    max_abs_diff: Optional[float] = None

    KEYS = _keys(
        "outcome", "stage", "category", "message", "reason", "compared", "note", "max_abs_diff"
    )

    @classmethod
    def from_json(cls, value: object, where: str) -> CpuReference:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        return cls(
            outcome=f.enum("outcome", Outcome),
            stage=f.opt_enum("stage", Stage),
            category=f.opt_text("category", 80),
            message=f.opt_text("message", READ_MESSAGE_CHARS),
            reason=f.opt_text("reason", READ_REASON_CHARS),
            compared=f.opt_flag("compared"),
            note=f.opt_text("note", READ_REASON_CHARS),
            max_abs_diff=f.opt_number("max_abs_diff"),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {"outcome": self.outcome.value}
        out["stage"] = None if self.stage is None else self.stage.value
        out["category"] = self.category
        _put(out, "message", self.message)
        out["reason"] = self.reason
        _put(out, "compared", self.compared)
        _put(out, "note", self.note)
        out["max_abs_diff"] = _opt_number(self.max_abs_diff)
        return out


@dataclass(frozen=True)
class CensusSource:
    """Where a census case's inputs came from: the database, its version and entry."""

    database: str
    version: str
    entry: int
    op: str
    variant: str

    KEYS = _keys("database", "version", "entry", "op", "variant")

    @classmethod
    def from_json(cls, value: object, where: str) -> CensusSource:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        return cls(
            f.text("database"), f.text("version"), f.integer("entry", 0), f.text("op"),
            f.text("variant"),
        )  # fmt: skip

    def to_json(self) -> JSONObject:
        return {
            "database": self.database,
            "version": self.version,
            "entry": self.entry,
            "op": self.op,
            "variant": self.variant,
        }


@dataclass(frozen=True)
class CensusResult:
    """What a census case saw over its samples: the dtype (declared for the device or not),
    samples run, agreed and unchecked, the failing samples, how outputs were checked."""

    dtype: str
    declared: bool
    samples: Optional[int] = None
    ran: Optional[int] = None
    agreed: Optional[int] = None
    unchecked: Optional[int] = None
    check_failures: Optional[int] = None
    failed_samples: Tuple[int, ...] = ()
    check: Optional[str] = None
    database_expects: Tuple[str, ...] = ()
    extra: Dict[str, JSONScalar] = field(default_factory=dict)

    COUNTS = ("samples", "ran", "agreed", "unchecked", "check_failures")
    KNOWN = ("dtype", "declared", "failed_samples", "check", "database_expects", *COUNTS)
    MAX_KEYS = 32

    @classmethod
    def from_json(cls, value: object, where: str) -> CensusResult:
        f = Fields(value, where, RecordInvalid)
        if len(f.obj) > cls.MAX_KEYS:
            raise f.fail(f"holds {len(f.obj)} keys, over {cls.MAX_KEYS}")
        check = f.opt_text("check")
        if check is not None and check not in CENSUS_CHECKS:
            raise f.fail(f"'check' is {check[:40]!r}, not one of {CENSUS_CHECKS}")
        failed: List[int] = []
        for item in f.items("failed_samples", 20) if "failed_samples" in f.obj else []:
            if isinstance(item, bool) or not isinstance(item, int):
                raise f.fail("'failed_samples' holds something other than integers")
            failed.append(item)
        extra = {
            k: v
            for k, v in f.obj.items()
            if k not in cls.KNOWN
            and (
                v is None
                or isinstance(v, (str, int, bool))
                or (isinstance(v, float) and math.isfinite(v))
            )
        }
        if len(extra) + sum(1 for k in f.obj if k in cls.KNOWN) != len(f.obj):
            raise f.fail("holds a nested value under a key this portbench does not know")
        return cls(
            f.text("dtype"),
            f.flag("declared"),
            samples=f.opt_integer("samples", 0),
            ran=f.opt_integer("ran", 0),
            agreed=f.opt_integer("agreed", 0),
            unchecked=f.opt_integer("unchecked", 0),
            check_failures=f.opt_integer("check_failures", 0),
            failed_samples=tuple(failed),
            check=check,
            database_expects=f.texts("database_expects", 10) if "database_expects" in f.obj else (),
            extra=extra,
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = dict(self.extra)
        out["dtype"] = self.dtype
        out["declared"] = self.declared
        for key in self.COUNTS:
            _put(out, key, getattr(self, key))
        if self.failed_samples or self.samples is not None:
            out["failed_samples"] = list(self.failed_samples)
        _put(out, "check", self.check)
        if self.database_expects:
            out["database_expects"] = list(self.database_expects)
        return out
