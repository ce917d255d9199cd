"""Reading a profile's lock: every transitive package pinned, the header saying what it is.

A lock is a pip requirements file whose first lines are::

    # portbench-lock: profile=paper framework=torch flavor=cpu python=3.9 verified=true
    # source: how it was resolved

A lock may name the index that serves some of its packages (``# index: torch URL``, one
line per package): builds install those from that index only (``images/install.py``).

``verified=false`` marks a lock written from an index's documented versions that could
not be resolved from here (TPU wheels, paper-era CUDA wheels); builds say so.

A release's lock is a PEP 751 ``pylock.<flavor>.toml`` written by uv, with portbench's facts
in its ``[tool.portbench]`` table (``releases/locking.py``); both kinds read into one
:class:`Lock`, and both install the same way (``images/install.py``).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..paths import images_dir

__all__ = ["LOCK_HEADER", "Lock", "PylockPackage", "load_lock", "lock_id", "lock_path"]

LOCK_HEADER = re.compile(r"^# portbench-lock:(?P<fields>( [a-z_]+=[^\s]+)+)\s*$")
_INDEX = re.compile(r"^# index: (?P<name>[A-Za-z0-9_.\-]+) (?P<url>https?://\S+)\s*$")
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9_.\-]+)(\[[^\]]*\])?==(?P<version>[^\s;\\]+)")


@dataclass(frozen=True)
class Lock:
    path: Path
    profile: str
    framework: str
    flavor: str
    python: str
    verified: bool
    source: str
    pins: dict[str, str]
    """Package name (lowercase) -> pinned version."""
    fully_hashed: bool
    """Every pin carries --hash: pip installs with --require-hashes."""
    sha256: str
    indexes: dict[str, str] = field(default_factory=dict)
    """Package name (lowercase) -> the index that alone serves it (``# index:`` lines)."""
    kind: str = "requirements"
    """``requirements`` (a profile's pip requirements file) or ``pylock`` (a release's)."""
    release: str | None = None
    """``jax==0.6.2`` for a release's lock; None for a profile's."""
    build: str | None = None
    """A release lock's framework build: ``pypi``, or ``cpu`` (torch from PyTorch's CPU index)."""
    as_of: str | None = None
    """A release lock's dependencies are as the index served them at this time (UTC)."""
    platform: str | None = None
    """The platform it was resolved for (``x86_64-manylinux_2_40``)."""
    suite: str | None = None
    """The Debian suite of the base image whose Python it was resolved for."""
    recipe: int | None = None
    requirements: tuple[str, ...] = ()
    """What a release's lock was resolved from (``jax==0.6.2``, ``jaxlib==0.6.2``)."""
    packages: tuple[PylockPackage, ...] = ()
    """A pylock's packages, each with its wheels' hashes (empty for a requirements lock)."""

    @property
    def numpy(self) -> str | None:
        return self.pins.get("numpy")


@dataclass(frozen=True)
class PylockPackage:
    name: str
    """Normalized (lowercase, dashes)."""
    version: str
    sha256: tuple[str, ...]
    """The hashes of its wheels (and sdist), any of which pip may install."""
    size_bytes: int
    """Its largest wheel's size: what one install downloads, at most."""


def lock_path(profile: str, framework: str, flavor: str) -> Path:
    return images_dir() / "locks" / profile / f"{framework}-{flavor}.txt"


def lock_id(lock: Lock) -> str:
    """The lock's name relative to the folder of locks it lives in (committed or cached):
    ``current/jax-cpu.txt``, ``releases/jax/0.6.2/pylock.cpu.toml``."""
    parts = lock.path.parts
    if "locks" in parts:
        return "/".join(parts[len(parts) - parts[::-1].index("locks") :])
    return lock.path.name


def load_lock(path: Path) -> Lock:
    """Parse and check a lock; a missing or malformed one is one sentence naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(
            f"{path} does not exist: this framework x flavor has no lock for that profile; "
            "list the locks with `ls images/locks/*/`"
        ) from None
    if path.suffix == ".toml":
        return _load_pylock(path, text)
    lines = text.splitlines()
    header = LOCK_HEADER.match(lines[0]) if lines else None
    if header is None:
        raise UsageError(
            f"{path}: the first line must be '# portbench-lock: profile=... framework=... flavor=... python=... verified=...'"
        )
    fields = dict(item.split("=", 1) for item in header.group("fields").split())
    missing = {"profile", "framework", "flavor", "python", "verified"} - set(fields)
    if missing:
        raise UsageError(f"{path}: the lock header lacks {', '.join(sorted(missing))}")
    source = next(
        (ln[len("# source:") :].strip() for ln in lines if ln.startswith("# source:")), ""
    )
    indexes = {
        m.group("name").lower().replace("_", "-"): m.group("url")
        for m in map(_INDEX.match, lines)
        if m
    }
    pins: dict[str, str] = {}
    hashed: dict[str, bool] = {}
    current = None
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        match = _PIN.match(line)
        if match:
            current = match.group("name").lower().replace("_", "-")
            pins[current] = match.group("version")
            hashed[current] = "--hash=" in line
        elif current is not None and "--hash=" in line:
            hashed[current] = True
    if not pins:
        raise UsageError(f"{path}: the lock pins no package")
    unpinned = sorted(set(indexes) - set(pins))
    if unpinned:
        raise UsageError(
            f"{path}: '# index:' names {', '.join(unpinned)}, which the lock does not pin"
        )
    return Lock(
        path=path,
        profile=fields["profile"],
        framework=fields["framework"],
        flavor=fields["flavor"],
        python=fields["python"],
        verified=fields["verified"] == "true",
        source=source,
        pins=pins,
        fully_hashed=all(hashed.values()),
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        indexes=indexes,
    )


def _package(path: Path, entry: Any) -> PylockPackage:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise UsageError(f"{path}: a [[packages]] entry has no name")
    name = entry["name"].lower().replace("_", "-")
    version = entry.get("version")
    if not isinstance(version, str):
        raise UsageError(f"{path}: package {name} is not pinned to a version")
    # A package with wheels installs one of them (the lock was resolved wheels only); its
    # sdist's hash is left out, so pip cannot fall back to building it.
    files = list(entry.get("wheels") or []) or ([entry["sdist"]] if "sdist" in entry else [])
    hashes: list[str] = []
    sizes = [0]
    for item in files:
        digest = (item.get("hashes") or {}).get("sha256") if isinstance(item, dict) else None
        if isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest):
            hashes.append(digest)
        if isinstance(item, dict) and isinstance(item.get("size"), int):
            sizes.append(item["size"])
    return PylockPackage(name, version, tuple(hashes), max(sizes))


def _load_pylock(path: Path, text: str) -> Lock:
    """A PEP 751 lock with portbench's ``[tool.portbench]`` table."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not a TOML file ({exc})") from None
    if str(data.get("lock-version", "")).split(".")[0] != "1":
        raise UsageError(f"{path}: not a PEP 751 lock (lock-version 1.x); make it anew with uv")
    tool = (data.get("tool") or {}).get("portbench")
    if not isinstance(tool, dict):
        raise UsageError(
            f"{path}: has no [tool.portbench] table; make release locks with "
            "`portbench images lock --release FRAMEWORK==VERSION`"
        )
    missing = {"release", "flavor", "python", "verified"} - set(tool)
    if missing:
        raise UsageError(f"{path}: [tool.portbench] lacks {', '.join(sorted(missing))}")
    packages = tuple(_package(path, entry) for entry in data.get("packages") or [])
    if not packages:
        raise UsageError(f"{path}: the lock pins no package")
    indexes = {
        str(name).lower().replace("_", "-"): str(url)
        for name, url in (tool.get("indexes") or {}).items()
    }
    pins = {p.name: p.version for p in packages}
    unpinned = sorted(set(indexes) - set(pins))
    if unpinned:
        raise UsageError(
            f"{path}: [tool.portbench.indexes] names {', '.join(unpinned)}, which the lock does not pin"
        )
    release = str(tool["release"])
    recipe = tool.get("recipe")
    return Lock(
        path=path,
        profile="release",
        framework=release.split("==", 1)[0],
        flavor=str(tool["flavor"]),
        python=str(tool["python"]),
        verified=tool["verified"] is True,
        source=str(tool.get("source", "")),
        pins=pins,
        fully_hashed=all(p.sha256 for p in packages),
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        indexes=indexes,
        kind="pylock",
        release=release,
        build=str(tool["build"]) if "build" in tool else None,
        as_of=str(tool["as-of"]) if "as-of" in tool else None,
        platform=str(tool["platform"]) if "platform" in tool else None,
        suite=str(tool["suite"]) if "suite" in tool else None,
        recipe=recipe if isinstance(recipe, int) else None,
        requirements=tuple(str(r) for r in tool.get("requirements") or []),
        packages=packages,
    )
