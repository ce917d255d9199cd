"""Reading a profile's lock: every transitive package pinned, the header saying what it is.

A lock is a pip requirements file whose first lines are::

    # portbench-lock: profile=paper framework=torch flavor=cpu python=3.9 verified=true
    # source: how it was resolved

A lock may name the index that serves some of its packages (``# index: torch URL``, one
line per package): builds install those from that index only (``images/install.py``).

``verified=false`` marks a lock written from an index's documented versions that could
not be resolved from here (TPU wheels, paper-era CUDA wheels); builds say so.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..paths import images_dir

__all__ = ["LOCK_HEADER", "Lock", "load_lock", "lock_path"]

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


def lock_path(profile: str, framework: str, flavor: str) -> Path:
    return images_dir() / "locks" / profile / f"{framework}-{flavor}.txt"


def load_lock(path: Path) -> Lock:
    """Parse and check a lock; a missing or malformed one is one sentence naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(
            f"{path} does not exist: this framework x flavor has no lock for that profile; "
            "list the locks with `ls images/locks/*/`"
        ) from None
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
