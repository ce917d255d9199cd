"""The API maps kept as data: one file per framework release, written by ``portbench scan-map``.

A map says which dotted paths are the framework's public API in that release (and which
object each names: ``tensorflow.math.add`` is ``tensorflow.add``), the members of its
classes, what some calls return, and the census operators each API reaches. Files live in
``src/portbench/scan/data/`` (shipped with the package, so a scan works from an installed
wheel) as ``<framework>-<release>.json.gz``.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from ..documents import check_document
from ..errors import UsageError

__all__ = [
    "FRAMEWORK_ROOTS",
    "MAP_SCHEMA",
    "ApiMap",
    "Lookup",
    "available_maps",
    "load_map",
    "release_key",
]

MAP_SCHEMA = 1
#: The top-level module of each framework the scanner resolves uses of.
FRAMEWORK_ROOTS = {"torch": "torch", "tensorflow": "tensorflow", "jax": "jax"}
_FILE = re.compile(r"^(torch|tensorflow|jax)-(.+)\.json\.gz$")
#: Bytes a map may have once decompressed (the largest, torch's, is about 8 MB).
MAX_MAP_BYTES = 64 << 20


def release_key(release: str) -> tuple[int, Any]:
    """Sort key of a release string: PEP 440 where it parses (local parts ignored:
    ``2.13.0+cpu`` is 2.13.0), else after every version, by text."""
    try:
        return (0, Version(release.split("+", 1)[0]))
    except InvalidVersion:
        return (1, release)


@dataclass(frozen=True)
class Lookup:
    """What a path is: its kind (module, function, class, method, attribute) and the
    canonical path of its object."""

    kind: str
    canonical: str


@dataclass
class ApiMap:
    """One framework release's map, loaded."""

    framework: str
    release: str
    path: str
    names: dict[str, list[str]]
    classes: dict[str, list[str]]
    ops: dict[str, dict[str, Any]]
    returns: dict[str, str]
    counts: dict[str, Any] = field(default_factory=dict)
    _cache: dict[str, Lookup | None] = field(default_factory=dict, repr=False)
    _members: dict[tuple[str, str], Lookup | None] = field(default_factory=dict, repr=False)

    def lookup(self, path: str) -> Lookup | None:
        """The API ``path`` names, members found through the class's bases; None if the
        release has no such public path."""
        if path in self._cache:
            return self._cache[path]
        found: Lookup | None = None
        row = self.names.get(path)
        if row is not None:
            found = Lookup(row[0], row[1])
        elif "." in path:
            owner_path, attr = path.rsplit(".", 1)
            owner = self.lookup(owner_path)
            if owner is not None and owner.kind == "class":
                found = self.member(owner.canonical, attr)
        self._cache[path] = found
        return found

    def member(self, cls: str, attr: str) -> Lookup | None:
        """``attr`` of class ``cls`` (canonical), itself or inherited from a listed base."""
        key = (cls, attr)
        if key in self._members:
            return self._members[key]
        found = None
        for owner in (cls, *self.classes.get(cls, ())):
            row = self.names.get(f"{owner}.{attr}")
            if row is not None:
                found = Lookup(row[0], row[1])
                break
        self._members[key] = found
        return found

    def operators(self, canonical: str) -> tuple[tuple[str, ...], str | None]:
        """(census operators, how they were found) of an API; ((), None) if none."""
        entry = self.ops.get(canonical)
        if not entry:
            return (), None
        return tuple(entry.get("ops") or ()), str(entry.get("via") or "")

    def receiver_classes(self) -> set[str]:
        """Classes whose instances calls return (``torch.Tensor``, ``jax.Array``): the
        receivers a method matched by name alone would be guessed on."""
        return set(self.returns.values())

    def method_names(self, classes: set[str]) -> set[str]:
        """Public method names of ``classes`` (with inherited ones)."""
        wanted = {c: {c, *self.classes.get(c, ())} for c in classes}
        owners = set().union(*wanted.values()) if wanted else set()
        names = set()
        for path, (kind, _canonical) in self.names.items():
            if kind == "method" and path.rsplit(".", 1)[0] in owners:
                names.add(path.rsplit(".", 1)[1])
        return names


def _data_dir() -> Path:
    return Path(str(resources.files("portbench.scan") / "data"))


def available_maps(folder: Path | None = None) -> dict[str, list[tuple[str, Path]]]:
    """Per framework, (release, file) of every map in ``folder``, oldest release first."""
    folder = folder or _data_dir()
    found: dict[str, list[tuple[str, Path]]] = {}
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            match = _FILE.match(path.name)
            if match:
                found.setdefault(match.group(1), []).append((match.group(2), path))
    for releases in found.values():
        releases.sort(key=lambda item: release_key(item[0]))
    return found


def load_map(path: Path) -> ApiMap:
    """Read one map file; a damaged or foreign file is one sentence."""
    try:
        with gzip.open(path, "rb") as handle:
            data = handle.read(MAX_MAP_BYTES + 1)
        if len(data) > MAX_MAP_BYTES:
            raise ValueError("too large")
        doc = json.loads(data)
    except (OSError, ValueError, EOFError) as exc:
        raise UsageError(
            f"{path}: not a readable API map ({exc}); rebuild it with portbench scan-map"
        ) from None
    doc = check_document(
        doc, path, "scan-map", MAP_SCHEMA, "API map", hint="rebuild it with portbench scan-map"
    )
    try:
        names, classes, ops, returns = doc["names"], doc["classes"], doc["ops"], doc["returns"]
        # The shapes are checked on one entry of each table: the file is ours (written by
        # scan-map, shipped in the package or named by --maps), so a full pass over tens of
        # thousands of entries would only cost load time.
        for table, shape in ((names, list), (classes, list), (ops, dict), (returns, str)):
            if not isinstance(table, dict) or not all(
                isinstance(v, shape) for v in list(table.values())[:1]
            ):
                raise TypeError("a table has the wrong shape")
        return ApiMap(
            framework=str(doc["framework"]),
            release=str(doc["release"]),
            path=str(path),
            names=names,
            classes=classes,
            ops=ops,
            returns=returns,
            counts=dict(doc.get("counts") or {}),
        )
    except (KeyError, TypeError, IndexError, AttributeError):
        raise UsageError(
            f"{path}: a malformed API map; rebuild it with portbench scan-map"
        ) from None
