"""What a record (or a plan) says of where its evidence comes from, beyond its cell: the
release, Python, NumPy and lock that produced it (issue 28), how a predicted or declared
record knows what it says (issue 30), and the mutant a mutation run's record ran against
(issue 33). All optional in record and plan schema 4; absent, a record means what it did."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from .enums import (
    EvidenceKind,
    Outcome,
    PredictionControl,
    PredictionMethod,
    PredictionVerdict,
)
from .fields import Fields, JSONObject, PlanInvalid, RecordInvalid

__all__ = [
    "PREDICTION_PLATFORMS",
    "LockRef",
    "MutantInfo",
    "Prediction",
    "PredictionSettings",
    "Provenance",
    "SiblingTarget",
]

#: Platforms a cell can be predicted for: JAX lowers for them, TensorFlow and PyTorch read
#: their kernels (docs/predictions.md).
PREDICTION_PLATFORMS = ("cuda", "rocm", "tpu")
#: Targets one predicted pass may cover beside its own (one cell each).
MAX_SIBLINGS = 8

READ_NOTE_CHARS = 4000


def _put(out: JSONObject, key: str, value: object) -> None:
    if value is not None:
        out[key] = value


@dataclass(frozen=True)
class LockRef:
    """The lock a cell's environment was installed from: its id and content hash."""

    id: str
    sha256: str

    @classmethod
    def from_json(cls, value: object, where: str) -> LockRef:
        f = Fields(value, where, RecordInvalid, frozenset(("id", "sha256")))
        return cls(f.text("id", 200), f.text("sha256", 64))

    def to_json(self) -> JSONObject:
        return {"id": self.id, "sha256": self.sha256}


@dataclass(frozen=True)
class Provenance:
    """What produced a record, beyond its cell: the framework release a cell named
    (``jax==0.6.2``), the Python and NumPy versions and the lock (record schema 4; issue 28
    fills in what a plan names and what the worker found)."""

    release: Optional[str] = None
    python: Optional[str] = None
    numpy: Optional[str] = None
    lock: Optional[LockRef] = None

    KEYS = frozenset(("release", "python", "numpy", "lock"))

    @classmethod
    def from_json(cls, value: object, where: str) -> Provenance:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        return cls(
            f.opt_text("release", 200),
            f.opt_text("python", 80),
            f.opt_text("numpy", 80),
            f.opt("lock", LockRef.from_json),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {}
        _put(out, "release", self.release)
        _put(out, "python", self.python)
        _put(out, "numpy", self.numpy)
        _put(out, "lock", None if self.lock is None else self.lock.to_json())
        return out

    def merged(self, other: Provenance) -> Provenance:
        """These facts, with ``other``'s filling what these lack."""
        return Provenance(
            self.release or other.release,
            self.python or other.python,
            self.numpy or other.numpy,
            self.lock or other.lock,
        )


@dataclass(frozen=True)
class Prediction:
    """How a predicted or declared record learned what it says: the method and the target it
    speaks of (an accelerator id or platform name: ``tpu``, ``gpu-t4``) and the platform
    looked at (``cuda``, ``rocm``, ``tpu``); what it predicts of the case (``verdict``); the
    outcome of the case's CPU control (``control``: a case that fails there is not
    predictable, never a predicted failure); and why, in a line (``note``). Issue 30.

    The supervisor takes method, target and platform from the plan (:class:`PredictionSettings`)
    and only verdict, control and note from the worker."""

    method: PredictionMethod
    target: str
    control: Optional[Outcome] = None
    note: Optional[str] = None
    platform: Optional[str] = None
    verdict: Optional[PredictionVerdict] = None

    KEYS = frozenset(("method", "target", "control", "note", "platform", "verdict"))

    @classmethod
    def from_json(cls, value: object, where: str) -> Prediction:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        return cls(
            f.enum("method", PredictionMethod),
            f.text("target", 80),
            f.opt_enum("control", Outcome),
            f.opt_text("note", READ_NOTE_CHARS),
            f.opt_text("platform", 80),
            f.opt_enum("verdict", PredictionVerdict),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {"method": self.method.value, "target": self.target}
        _put(out, "platform", self.platform)
        _put(out, "verdict", None if self.verdict is None else self.verdict.value)
        _put(out, "control", None if self.control is None else self.control.value)
        _put(out, "note", self.note)
        return out


@dataclass(frozen=True)
class SiblingTarget:
    """Another target one predicted pass covers: its records go to a cell of its own."""

    target: str
    platform: Optional[str] = None

    @classmethod
    def from_json(cls, value: object, where: str) -> SiblingTarget:
        f = Fields(value, where, PlanInvalid, frozenset(("target", "platform")))
        return cls(f.text("target", 80), _platform(f))

    def to_json(self) -> JSONObject:
        out: JSONObject = {"target": self.target}
        _put(out, "platform", self.platform)
        return out


def _platform(f: Fields) -> Optional[str]:
    platform = f.opt_text("platform", 80)
    if platform is not None and platform not in PREDICTION_PLATFORMS:
        raise f.fail(
            f"cannot predict platform {platform[:40]!r} ({', '.join(PREDICTION_PLATFORMS)})"
        )
    return platform


@dataclass(frozen=True)
class PredictionSettings:
    """A plan's ``prediction``: the cell predicts ``target`` instead of running on it, by
    ``method``, looking at ``platform``; ``control`` says how its CPU control runs. The
    cell itself runs on this machine's CPU (issue 30, docs/predictions.md)."""

    method: PredictionMethod
    target: str
    platform: Optional[str] = None
    """``cuda``, ``rocm`` or ``tpu``; None: the target's own name is the platform."""
    control: PredictionControl = PredictionControl.CPU_RUN
    siblings: Tuple[SiblingTarget, ...] = ()
    """Other targets predicted in the same pass (one control, each case looked at for
    every platform in the same worker); each has a cell of its own (:meth:`Plan.siblings`)."""

    KEYS = frozenset(("method", "target", "platform", "control", "siblings"))

    def __post_init__(self) -> None:
        targets = [self.target, *(s.target for s in self.siblings)]
        if len(set(targets)) != len(targets) or len(self.siblings) > MAX_SIBLINGS:
            raise PlanInvalid(
                f"a predicted pass names its targets once each, at most {MAX_SIBLINGS + 1} "
                f"({', '.join(t[:40] for t in targets[:12])})"
            )

    @classmethod
    def from_json(cls, value: object, where: str) -> PredictionSettings:
        f = Fields(value, where, PlanInvalid, cls.KEYS)
        siblings = f.raw("siblings")
        return cls(
            f.enum("method", PredictionMethod),
            f.text("target", 80),
            _platform(f),
            f.opt_enum("control", PredictionControl) or PredictionControl.CPU_RUN,
            tuple(
                SiblingTarget.from_json(item, f"{where}.siblings")
                for item in (f.items("siblings", MAX_SIBLINGS) if siblings is not None else ())
            ),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {"method": self.method.value, "target": self.target}
        _put(out, "platform", self.platform)
        out["control"] = self.control.value
        if self.siblings:
            out["siblings"] = [s.to_json() for s in self.siblings]
        return out

    def sibling_settings(self) -> Tuple[PredictionSettings, ...]:
        """Each sibling target's own settings (this method and control; no siblings)."""
        return tuple(
            PredictionSettings(self.method, s.target, s.platform, self.control)
            for s in self.siblings
        )

    @property
    def platforms(self) -> Tuple[str, ...]:
        """The platforms a case is looked at for, this target's first, each once."""
        found = [self.looks_at]
        for s in self.sibling_settings():
            if s.looks_at not in found:
                found.append(s.looks_at)
        return tuple(found)

    @property
    def evidence_kind(self) -> EvidenceKind:
        return self.method.evidence_kind

    @property
    def looks_at(self) -> str:
        """The platform the look is made for."""
        return self.platform or self.target

    def record(self, found: Optional[Prediction]) -> Prediction:
        """A record's prediction: this plan's method, target and platform, with the
        verdict, control and note the worker ``found`` (none for a case that could not
        report: a crash, a timeout)."""
        return Prediction(
            self.method,
            self.target,
            None if found is None else found.control,
            None if found is None else found.note,
            self.platform,
            None if found is None else found.verdict,
        )


@dataclass(frozen=True)
class MutantInfo:
    """The mutant a mutation run's record ran against (issue 33): its kind (``float``,
    ``off_by_one``, ``dtype``, ``shape``, ``nan``, ``raise``...) and id within the case."""

    kind: str
    id: str
    note: Optional[str] = None

    KEYS = frozenset(("kind", "id", "note"))

    @classmethod
    def from_json(cls, value: object, where: str) -> MutantInfo:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        return cls(f.text("kind", 80), f.text("id", 200), f.opt_text("note", READ_NOTE_CHARS))

    def to_json(self) -> JSONObject:
        out: JSONObject = {"kind": self.kind, "id": self.id}
        _put(out, "note", self.note)
        return out
