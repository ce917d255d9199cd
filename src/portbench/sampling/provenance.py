"""Where a sampling file came from: the portbench that wrote it and the cell that walked the API.

Every file of the pipeline (enumeration, frequency, manifest skeleton) names portbench's
version and the commit of the checkout it ran from, so a table can be traced to the code
that made it; an enumeration also names the profile, backend, image and lock of its cell,
because the list of names depends on exactly what that cell had installed.
"""

from __future__ import annotations

import functools
import subprocess
from typing import TypedDict

from .. import __version__
from ..backends.base import PreparedEnvironment
from ..errors import UsageError
from ..images.locks import load_lock, lock_path
from ..paths import project_root
from ..profiles import PINNED_PROFILES

__all__ = ["cell_identity", "portbench_identity"]

#: git answers in milliseconds; a hung one (a network file system) must not stall a command.
GIT_TIMEOUT_S = 10.0


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(project_root()), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


class PortbenchIdentity(TypedDict):
    """Which portbench made a file."""

    version: str
    commit: str | None
    dirty: bool | None


class CellIdentity(TypedDict):
    """The cell an enumeration walk ran in (the listing's ``provenance.cell``)."""

    framework: str
    flavor: str
    profile: str
    backend: str
    environment: str
    image: dict[str, object] | None
    interpreter: str | None
    lock: str | None
    lock_sha256: str | None


@functools.lru_cache(maxsize=1)
def portbench_identity() -> PortbenchIdentity:
    """``{"version", "commit", "dirty"}``; commit and dirty are None outside a git checkout
    (an installed wheel), and dirty is True when tracked files differ from the commit."""
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {
        "version": __version__,
        "commit": commit,
        "dirty": None if status is None else bool(status),
    }


def cell_identity(framework: str, profile: str, prepared: PreparedEnvironment) -> CellIdentity:
    """The cell a walk ran in: profile, backend, image (docker), interpreter, and the lock
    the environment was built from (pinned profiles in docker or venv; ``--python`` names an
    interpreter by hand, so no lock can be vouched for, and the host profile has none)."""
    identity: CellIdentity = {
        "framework": framework,
        "flavor": "cpu",
        "profile": profile,
        "backend": prepared.backend,
        "environment": prepared.description,
        "image": prepared.image.to_json() if prepared.image else None,
        "interpreter": prepared.python,
        "lock": None,
        "lock_sha256": None,
    }
    if profile in PINNED_PROFILES and prepared.backend in ("docker", "venv"):
        path = lock_path(profile, framework, "cpu")
        try:
            lock = load_lock(path)
        except UsageError:
            return identity  # no lock for this framework (the tests' fake one): none to name
        identity["lock"] = path.relative_to(project_root()).as_posix()
        identity["lock_sha256"] = lock.sha256
    return identity
