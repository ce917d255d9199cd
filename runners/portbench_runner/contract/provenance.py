"""What a record (or a plan) says of where its evidence comes from, beyond its cell: the
release, Python, NumPy and lock that produced it (issue 28), how a predicted or declared
record knows what it says (issue 30), and the mutant a mutation run's record ran against
(issue 33). All optional in record and plan schema 4; absent, a record means what it did."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .enums import Outcome, PredictionMethod
from .fields import Fields, JSONObject, RecordInvalid

__all__ = ["LockRef", "MutantInfo", "Prediction", "Provenance"]

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
    """How a predicted or declared record (or cell) learned what it says: the method and
    the target it speaks of (a platform or accelerator id: ``tpu``, ``cuda``, ``gpu-t4``).
    A record's ``control`` is the outcome of the same case on the CPU, where the method has
    one: a case that fails there is not predictable (issue 30)."""

    method: PredictionMethod
    target: str
    control: Optional[Outcome] = None
    note: Optional[str] = None

    KEYS = frozenset(("method", "target", "control", "note"))

    @classmethod
    def from_json(cls, value: object, where: str) -> Prediction:
        f = Fields(value, where, RecordInvalid, cls.KEYS)
        return cls(
            f.enum("method", PredictionMethod),
            f.text("target", 80),
            f.opt_enum("control", Outcome),
            f.opt_text("note", READ_NOTE_CHARS),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {"method": self.method.value, "target": self.target}
        _put(out, "control", None if self.control is None else self.control.value)
        _put(out, "note", self.note)
        return out


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
