"""The parts of a plan: its accelerator, image, rules, timeouts, timing, fallback settings,
census settings, origin and mutation settings. Read as ``Plan.from_json`` reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple, Union

from .bounds import DEFAULT_CASE_TIMEOUT_S, DEFAULT_GRACE_S, DEFAULT_WORKER_START_S
from .enums import CATEGORIES, FallbackMode, Stage, TimingMode
from .fields import Fields, JSONObject, JSONScalar, PlanInvalid, json_scalars

__all__ = [
    "LOWERING_PLATFORMS",
    "CensusEntry",
    "CensusSettings",
    "FallbackSettings",
    "ImageRef",
    "MutationSettings",
    "Origin",
    "PlanAccelerator",
    "Rule",
    "Timeouts",
    "TimingSettings",
    "read_timing",
]

#: Platforms JAX can lower a program for without having the hardware.
LOWERING_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
#: A plan's ``timing``: settings that override the runner's defaults (timing.py), by name.
TimingSettings = Dict[str, Union[float, int, str, bool]]


def _put(out: JSONObject, key: str, value: object) -> None:
    if value is not None:
        out[key] = value


@dataclass(frozen=True)
class PlanAccelerator:
    """The accelerator as the plan names it: id, flavor, the device name it must match."""

    id: str
    flavor: str
    device_match: str = ""
    generic: str = ""
    gfx: str = ""
    """ROCm: the gfx target the framework must report (``gfx942``); "" elsewhere."""

    @classmethod
    def from_json(cls, value: object, where: str) -> PlanAccelerator:
        f = Fields(value, where, PlanInvalid)
        return cls(
            f.text("id", 80),
            f.text("flavor", 40),
            f.opt_text("device_match") or "",
            f.opt_text("generic") or "",
            f.opt_text("gfx", 40) or "",
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "id": self.id,
            "flavor": self.flavor,
            "device_match": self.device_match,
            "generic": self.generic,
        }
        # Only where there is one: other cells' plans stay as they were.
        _put(out, "gfx", self.gfx or None)
        return out


@dataclass(frozen=True)
class ImageRef:
    """The image a docker cell ran in: enough to find and check it again. ``extra`` keeps
    further scalar facts an image record may carry (labels a later portbench adds)."""

    id: str
    tag: str
    lock_verified: Optional[bool] = None
    lock_sha256: Optional[str] = None
    content: Optional[str] = None
    base: Optional[str] = None
    base_id: Optional[str] = None
    extra: Dict[str, JSONScalar] = field(default_factory=dict)

    KNOWN = ("id", "tag", "lock_verified", "lock_sha256", "content", "base", "base_id")

    @classmethod
    def from_json(cls, value: object, where: str) -> ImageRef:
        f = Fields(value, where, PlanInvalid)
        extra = json_scalars(
            {k: v for k, v in f.obj.items() if k not in cls.KNOWN}, where, PlanInvalid
        )
        return cls(
            f.text("id", 200),
            f.text("tag", 300),
            f.opt_flag("lock_verified"),
            f.opt_text("lock_sha256", 64),
            f.opt_text("content", 200),
            f.opt_text("base", 300),
            f.opt_text("base_id", 200),
            extra,
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = dict(self.extra)
        out.update(id=self.id, tag=self.tag)
        for key in self.KNOWN[2:]:
            _put(out, key, getattr(self, key))
        return out


@dataclass(frozen=True)
class Rule:
    """A failure-category rule: an exception type (any class in its MRO, bare or
    module-qualified) and/or a message regex, optionally only at some stages."""

    id: str
    category: str
    types: Tuple[str, ...] = ()
    message: Optional[str] = None
    stages: Tuple[Stage, ...] = ()

    @classmethod
    def from_json(cls, value: object, where: str) -> Rule:
        f = Fields(value, where, PlanInvalid)
        category = f.text("category")
        if category not in CATEGORIES:
            raise f.fail(f"category {category[:40]!r} is not one of {', '.join(CATEGORIES)}")
        message = f.opt_text("message")
        if message is not None:
            try:
                re.compile(message)
            except re.error as exc:
                raise f.fail(f"'message' is not a regular expression ({exc})") from None
        stages = f.texts("stages") if "stages" in f.obj else ()
        try:
            typed_stages = tuple(Stage(s) for s in stages)
        except ValueError:
            raise f.fail(f"a stage of {stages} is not one of setup, call, check") from None
        return cls(
            f.text("id", 200),
            category,
            f.texts("types") if "types" in f.obj else (),
            message,
            typed_stages,
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {"id": self.id, "category": self.category}
        if self.types:
            out["types"] = list(self.types)
        _put(out, "message", self.message)
        if self.stages:
            out["stages"] = [s.value for s in self.stages]
        return out


@dataclass(frozen=True)
class Timeouts:
    case_s: float = DEFAULT_CASE_TIMEOUT_S
    """A case's default deadline (a case may carry its own)."""
    worker_start_s: float = DEFAULT_WORKER_START_S
    """How long a worker may take to start (framework import) or to answer between cases."""
    grace_s: float = DEFAULT_GRACE_S
    """Between SIGTERM and SIGKILL of a worker's group."""

    @classmethod
    def from_json(cls, value: object, where: str) -> Timeouts:
        f = Fields(value, where, PlanInvalid)
        default = cls()
        return cls(
            f.opt_number("case_s", nonneg=True) or default.case_s,
            f.opt_number("worker_start_s", nonneg=True) or default.worker_start_s,
            f.opt_number("grace_s", nonneg=True) or default.grace_s,
        )

    def to_json(self) -> JSONObject:
        return {
            "case_s": self.case_s,
            "worker_start_s": self.worker_start_s,
            "grace_s": self.grace_s,
        }


def read_timing(value: object, where: str) -> TimingSettings:
    """A plan's timing settings: scalars by name; ``mode`` one of the timing modes."""
    settings = json_scalars(value, where, PlanInvalid)
    out: TimingSettings = {}
    for key, item in settings.items():
        if item is None:
            continue
        out[key] = item
    mode = out.get("mode")
    if mode is not None and mode not in [m.value for m in TimingMode]:
        allowed = ", ".join(m.value for m in TimingMode)
        raise PlanInvalid(f"{where}: mode {str(mode)[:40]!r} is not one of {allowed}")
    return out


@dataclass(frozen=True)
class FallbackSettings:
    """What a cell does with work that ran on the host (plan key ``fallback``)."""

    mode: FallbackMode = FallbackMode.MARK
    soft_placement: bool = False
    """TensorFlow: let ops without a kernel on the device run elsewhere (the study's
    soft-placement experiment); the probe then records where they went."""
    lower_for: Optional[str] = None
    """JAX: the platform the probe lowers each call for (default: the cell's own)."""

    @classmethod
    def from_json(cls, value: object, where: str) -> FallbackSettings:
        f = Fields(value, where, PlanInvalid)
        lower_for = f.opt_text("lower_for")
        if lower_for is not None and lower_for not in LOWERING_PLATFORMS:
            raise f.fail(f"cannot lower for {lower_for[:40]!r} ({', '.join(LOWERING_PLATFORMS)})")
        return cls(
            f.opt_enum("mode", FallbackMode) or FallbackMode.MARK,
            bool(f.opt_flag("soft_placement")),
            lower_for,
        )

    def to_json(self) -> JSONObject:
        return {
            "mode": self.mode.value,
            "soft_placement": self.soft_placement,
            "lower_for": self.lower_for,
        }

    def cli_args(self) -> Tuple[str, ...]:
        """The bench flags that give these settings, so a case's rerun command keeps them."""
        args: Tuple[str, ...] = (
            () if self.mode is FallbackMode.MARK else ("--fallback", self.mode.value)
        )
        args += ("--soft-placement",) if self.soft_placement else ()
        return args + (("--lower-for", self.lower_for) if self.lower_for else ())


@dataclass(frozen=True)
class CensusEntry:
    """A census function's database entry: where its cases' inputs come from."""

    database: str
    version: str
    entry: int
    op: str
    variant: str
    declared: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    """Dtypes the database declares per device type."""
    reference: bool = False
    row: Optional[str] = None
    """The report's row: the operator, or the primitive a one-dtype entry exercises."""

    @classmethod
    def from_json(cls, value: object, where: str) -> CensusEntry:
        f = Fields(value, where, PlanInvalid)
        declared: Dict[str, Tuple[str, ...]] = {}
        if f.has("declared"):
            table = f.nested("declared")
            for device in table.obj:
                declared[device] = table.texts(device)
        return cls(
            f.text("database"),
            f.text("version"),
            f.integer("entry", 0),
            f.text("op"),
            f.text("variant"),
            declared,
            bool(f.opt_flag("reference")),
            f.opt_text("row"),
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "database": self.database,
            "version": self.version,
            "entry": self.entry,
            "op": self.op,
            "variant": self.variant,
            "declared": {k: list(v) for k, v in self.declared.items()},
            "reference": self.reference,
        }
        _put(out, "row", self.row)
        return out


@dataclass(frozen=True)
class CensusSettings:
    """A census cell's settings (plan key ``census``, schema 3)."""

    framework: str
    database: str
    version: str
    entries: int
    listing_sha256: str
    dtypes: Tuple[str, ...]
    timing: bool = True
    max_samples: int = 0
    """At most this many samples per entry and dtype; 0: every sample."""
    site: Tuple[str, ...] = ()
    """Folders the worker adds to its path (the census lock's packages)."""

    @classmethod
    def from_json(cls, value: object, where: str) -> CensusSettings:
        f = Fields(value, where, PlanInvalid)
        timing = f.opt_flag("timing")
        return cls(
            f.text("framework"),
            f.text("database"),
            f.text("version"),
            f.integer("entries", 0),
            f.text("listing_sha256"),
            f.texts("dtypes"),
            True if timing is None else timing,
            f.opt_integer("max_samples", 0) or 0,
            f.texts("site") if "site" in f.obj else (),
        )

    def to_json(self) -> JSONObject:
        return {
            "framework": self.framework,
            "database": self.database,
            "version": self.version,
            "entries": self.entries,
            "listing_sha256": self.listing_sha256,
            "dtypes": list(self.dtypes),
            "timing": self.timing,
            "max_samples": self.max_samples,
            "site": list(self.site),
        }


@dataclass(frozen=True)
class Origin:
    """Where a rerun's plan came from: the earlier cell, its plan's hash, where it ran."""

    cell: str
    cell_dir: Optional[str] = None
    plan_sha256: Optional[str] = None
    accelerator: Optional[str] = None
    image_id: Optional[str] = None
    host: Optional[str] = None
    started_at: Optional[str] = None
    portbench_version: Optional[str] = None

    OPTIONAL = (
        "cell_dir",
        "plan_sha256",
        "accelerator",
        "image_id",
        "host",
        "started_at",
        "portbench_version",
    )

    @classmethod
    def from_json(cls, value: object, where: str) -> Origin:
        f = Fields(value, where, PlanInvalid)
        return cls(f.text("cell"), *(f.opt_text(key) for key in cls.OPTIONAL))

    def to_json(self) -> JSONObject:
        out: JSONObject = {"cell": self.cell}
        for key in self.OPTIONAL:
            out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class MutationSettings:
    """A mutation run's settings (plan key ``mutation``, issue 33): the mutant kinds applied,
    the cell whose cases it mutates, and further scalar settings by name. A plan with it
    runs mutants; its records are of kind ``mutant``, never a cell's results."""

    mutants: Tuple[str, ...]
    origin: Optional[str] = None
    settings: Dict[str, JSONScalar] = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: object, where: str) -> MutationSettings:
        f = Fields(value, where, PlanInvalid)
        return cls(
            f.texts("mutants", 64, 80),
            f.opt_text("origin"),
            f.scalars("settings") if "settings" in f.obj else {},
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = {"mutants": list(self.mutants), "settings": dict(self.settings)}
        _put(out, "origin", self.origin)
        return out
