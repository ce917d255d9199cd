"""A release as a cell's profile: ``--release jax==0.6.2`` runs the cell
``jax/cpu/jax-0.6.2``, whose profile is the release's tag.

A profile names a set of pins; a release cell's pins are its release's lock, so the
release's tag stands where a profile's name does (cell id, cell directory, image tag, venv
name) and reads back to the release. That keeps a release cell resumable and each case
rerunnable with the command its record carries (``--profile jax-0.6.2``), as a profile's
cell is. A tag only counts as a release of the cell's own framework.
"""

from __future__ import annotations

from collections.abc import Callable

from portbench_runner.contract import LockRef, Provenance

from ..errors import UsageError
from ..images.locks import Lock, load_lock, lock_id, lock_path
from .spec import Release, parse_release, release_from_tag

__all__ = ["cell_lock", "lock_provenance", "release_cell_profile", "release_of_profile"]

Note = Callable[[str], None]


def release_of_profile(profile: str, framework: str) -> Release | None:
    """The release a profile name stands for (``jax-0.6.2`` in a jax cell), or None when
    it is no release tag (``current``) or the tag names another framework."""
    if not profile.startswith(f"{framework}-") or not framework:
        return None
    try:
        return release_from_tag(profile)
    except UsageError:
        return None


def release_cell_profile(text: str, framework: str | None) -> tuple[str, str]:
    """``--release jax==0.6.2`` (with ``--framework`` or without): (framework, profile)."""
    release = parse_release(text, framework)
    return release.framework, release.tag


def cell_lock(profile: str, framework: str, flavor: str, note: Note = lambda _: None) -> Lock:
    """The lock a cell installs: a release's (committed, cached or made now with uv), or a
    profile's committed one."""
    release = release_of_profile(profile, framework)
    if release is None:
        return load_lock(lock_path(profile, framework, flavor))
    from .locking import release_lock

    return release_lock(release, flavor, note)


def lock_provenance(lock: Lock) -> Provenance | None:
    """What a release cell's plan says produced it: the release and its lock; None for a
    profile's lock. Python and numpy are left to the worker, which records the versions it
    imported (``3.11.2``, where the lock says ``3.11``)."""
    if lock.release is None:
        return None
    return Provenance(release=lock.release, lock=LockRef(lock_id(lock), lock.sha256))
