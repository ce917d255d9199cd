"""env.json: where a cell ran, as its supervisor and first worker found it.

The supervisor writes the cell's own facts (cell, framework, accelerator, profile, backend,
image, installer, portbench's version, the plan's hash, the provenance a plan names); the
worker adds what it finds (Python, installed packages, device, CPU, host, the dispatch
floor), kept as ``facts``: free-form, bounded by the reader, read through the accessors
below, which never trust a type.

Env schema: 1 (the optional ``provenance`` is new with the contract; a reader that does
not know it ignores it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, TypeVar

from .fields import ContractError, DocumentInvalid, Fields, JSONObject
from .plan_parts import ImageRef
from .provenance import Provenance

__all__ = ["ENV_SCHEMA", "EnvDocument"]

ENV_SCHEMA = 1
T = TypeVar("T")
_OWN = (
    "schema",
    "kind",
    "cell",
    "framework",
    "accelerator",
    "profile",
    "backend",
    "image",
    "installer",
    "portbench_version",
    "started_at",
    "plan_sha256",
    "provenance",
)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _opt_text(value: object) -> Optional[str]:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class EnvDocument:
    cell: str
    framework: str = ""
    accelerator: str = ""
    profile: str = ""
    backend: str = ""
    image: Optional[ImageRef] = None
    installer: Optional[str] = None
    portbench_version: str = "unknown"
    started_at: Optional[str] = None
    plan_sha256: Optional[str] = None
    provenance: Optional[Provenance] = None
    facts: JSONObject = field(default_factory=dict)
    """What the worker found (python, packages, device, cpu, host, dispatch_floor...)."""
    schema: int = ENV_SCHEMA

    @classmethod
    def from_json(cls, obj: object, where: str) -> EnvDocument:
        f = Fields(obj, where, DocumentInvalid)
        if f.raw("kind") != "env":
            raise f.fail("not an env document ('kind' is not 'env')")
        schema = f.integer("schema")
        if schema > ENV_SCHEMA:
            raise f.fail(
                f"env schema {schema} is newer than this portbench's {ENV_SCHEMA}; upgrade "
                "portbench to read it"
            )
        image = f.raw("image")
        provenance = f.raw("provenance")
        return cls(
            cell=_text(f.raw("cell")),
            framework=_text(f.raw("framework")),
            accelerator=_text(f.raw("accelerator")),
            profile=_text(f.raw("profile")),
            backend=_text(f.raw("backend")),
            image=_try(ImageRef.from_json, image, where),
            installer=_opt_text(f.raw("installer")),
            portbench_version=_text(f.raw("portbench_version")) or "unknown",
            started_at=_opt_text(f.raw("started_at")),
            plan_sha256=_opt_text(f.raw("plan_sha256")),
            provenance=_try(Provenance.from_json, provenance, where),
            facts={k: v for k, v in f.obj.items() if k not in _OWN},
            schema=schema,
        )

    def to_json(self) -> JSONObject:
        out: JSONObject = dict(self.facts)
        out.update(
            schema=self.schema,
            kind="env",
            cell=self.cell,
            framework=self.framework,
            accelerator=self.accelerator,
            profile=self.profile,
            backend=self.backend,
            image=None if self.image is None else self.image.to_json(),
            installer=self.installer,
            portbench_version=self.portbench_version,
            started_at=self.started_at,
            plan_sha256=self.plan_sha256,
        )
        if self.provenance is not None:
            out["provenance"] = self.provenance.to_json()
        return out

    # -- what readers ask (a damaged fact reads as unknown, never as a crash) ---------------
    def _section(self, key: str) -> JSONObject:
        value = self.facts.get(key)
        return value if isinstance(value, dict) else {}

    @property
    def device_name(self) -> str:
        return _text(self._section("device").get("device_name"))

    @property
    def python_version(self) -> str:
        return _text(self._section("python").get("version"))

    @property
    def hostname(self) -> str:
        return _text(self._section("host").get("hostname"))

    @property
    def framework_version(self) -> str:
        return _text(self.facts.get("framework_version"))

    @property
    def packages(self) -> Dict[str, str]:
        listed = self.facts.get("packages")
        if not isinstance(listed, dict):
            return {}
        return {str(k): str(v) for k, v in listed.items() if isinstance(v, (str, int, float))}

    def section(self, key: str) -> JSONObject:
        """A fact that is an object (``device``, ``cpu``, ``dispatch_floor``), or {}."""
        return self._section(key)


def _try(read: Callable[[object, str], T], value: object, where: str) -> Optional[T]:
    """``read(value)``, or None where it is absent or damaged: a damaged fact of an env is
    unknown, never fatal to a reader."""
    if value is None:
        return None
    try:
        return read(value, where)
    except ContractError:
        return None
