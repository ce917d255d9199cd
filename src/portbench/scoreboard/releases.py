"""Which release of each framework is the newest known, and whether a series is behind it.

Known without any network lookup at build time: from ``current``'s locks (the newest
releases the project pins, refreshed by ``portbench images refresh``) and from the
newest release any stored cell names. A series whose newest release is older than that is
stale: the scoreboard says so beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..images.locks import load_lock
from ..paths import images_dir
from ..store.facts import release_key, release_of
from .model import StoreData

__all__ = ["Known", "known_releases", "lock_releases"]

#: The package whose pin is the framework's release, per framework (first found wins).
FRAMEWORK_PACKAGES = {
    "torch": ("torch",),
    "jax": ("jax",),
    "tensorflow": ("tensorflow", "tensorflow-cpu"),
}


@dataclass(frozen=True)
class Known:
    release: str
    source: str
    """Where it is known from: ``current's lock (file)`` or ``a stored cell (id)``."""


def lock_releases(root: Path | None = None) -> dict[str, Known]:
    """The newest release each framework's ``current`` locks pin."""
    folder = (root or images_dir()) / "locks" / "current"
    out: dict[str, Known] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.txt")):
        framework = path.name.split("-", 1)[0]
        packages = FRAMEWORK_PACKAGES.get(framework)
        if packages is None:
            continue
        try:
            pins = load_lock(path).pins
        except UsageError:
            continue
        release = next((release_of(pins[p]) for p in packages if p in pins), None)
        if release and release_key(release) > release_key(
            out[framework].release if framework in out else None
        ):
            out[framework] = Known(release, f"current's lock ({path.name})")
    return out


def known_releases(data: StoreData, root: Path | None = None) -> dict[str, Known]:
    """The newest release known per framework: locks and stored cells together."""
    known = lock_releases(root)
    for run in data.runs:
        if not run.release:
            continue
        have = known.get(run.framework)
        if release_key(run.release) > release_key(have.release if have else None):
            known[run.framework] = Known(run.release, f"a stored cell ({run.cell_id})")
    return known
