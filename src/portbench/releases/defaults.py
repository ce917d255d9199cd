"""The releases a sweep runs by default, read from the index when the sweep starts.

- JAX: the newest patch of every minor from 0.4 on, and, since 0.4 lasted two years, also
  the first 0.4 release with a served jaxlib (0.4.13) and every fifth patch after it
  (0.4.20, 0.4.25, 0.4.30, 0.4.35); a jax release without the jaxlib of its own version is
  skipped.
- TensorFlow: the newest patch of every minor from 2.11 on (its CPU build,
  ``tensorflow-cpu``).
- PyTorch: the newest patch of every minor from 1.12 on.

A release is listed only if the index serves a wheel of it (of jaxlib, for JAX) that one of
the base images' Pythons can install on this machine's architecture; pre-releases and
yanked files never count. Only the rules are written here: the versions come from the index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from packaging.version import Version

from ..errors import UsageError
from .index import PYPI_SIMPLE, Project, fetch_project
from .pythons import BASE_PYTHONS, machine_arch, wheel_fits
from .recipes import recipe
from .spec import Release

__all__ = ["FIRST_MINOR", "default_releases", "installable_releases", "select_releases"]

Fetch = Callable[[str, str], Project]

#: The oldest minor each framework's default list starts at.
FIRST_MINOR = {"jax": Version("0.4"), "tensorflow": Version("2.11"), "torch": Version("1.12")}
#: JAX 0.4's extra points: every this many patches.
JAX_04_STEP = 5


def _installable(project: Project, version: Version, arch: str) -> bool:
    return any(
        wheel_fits(f.filename, f.requires_python, base, arch)
        for f in project.files_of(version)
        if f.is_wheel
        for base in BASE_PYTHONS
    )


def installable_releases(
    framework: str, index: str = PYPI_SIMPLE, arch: str | None = None, fetch: Fetch = fetch_project
) -> list[Release]:
    """Every release of ``framework`` whose wheels a base image's Python installs here
    (``fetch`` reads an index's listing of a project)."""
    arch = arch or machine_arch()
    probe = recipe(Release(framework, "0"), "cpu")
    wheels = fetch(probe.wheel_package, index)
    named = fetch(probe.date_package, index)
    served = set(named.releases())
    return [
        Release(framework, str(version))
        for version in wheels.releases()
        if version in served and _installable(wheels, version, arch)
    ]


def _newest_per_minor(releases: Iterable[Release]) -> list[Release]:
    newest: dict[tuple[int, int], Release] = {}
    for release in releases:
        key = (release.parsed.major, release.parsed.minor)
        if key not in newest or release.parsed > newest[key].parsed:
            newest[key] = release
    return list(newest.values())


def default_releases(
    framework: str, index: str = PYPI_SIMPLE, arch: str | None = None, fetch: Fetch = fetch_project
) -> list[Release]:
    """The default sweep of ``framework``, oldest first."""
    first = FIRST_MINOR[framework]
    candidates = [
        r
        for r in installable_releases(framework, index, arch, fetch)
        if (r.parsed.major, r.parsed.minor) >= (first.major, first.minor)
    ]
    chosen = set(_newest_per_minor(candidates))
    if framework == "jax":
        series = [r for r in candidates if (r.parsed.major, r.parsed.minor) == (0, 4)]
        if series:
            start = min(series, key=lambda r: r.parsed)
            chosen.add(start)
            chosen.update(
                r
                for r in series
                if r.parsed.micro > start.parsed.micro
                and r.parsed.micro % JAX_04_STEP == 0
                and r.parsed.release[3:] == ()  # 0.4.20, not a 0.4.20.1
            )
    return sorted(chosen, key=lambda r: r.parsed)


def select_releases(
    framework: str,
    listed: list[Release] | None = None,
    low: Release | None = None,
    high: Release | None = None,
    index: str = PYPI_SIMPLE,
) -> list[Release]:
    """A sweep's releases: those ``listed`` (as given), else the default list, cut to
    ``low``..``high`` (both included)."""
    for bound in (low, high):
        if bound is not None and bound.framework != framework:
            raise UsageError(f"{bound.pin} is not a {framework} release")
    if low is not None and high is not None and low.parsed > high.parsed:
        raise UsageError(f"--from {low.version} is newer than --to {high.version}; swap them")
    releases = list(listed) if listed else default_releases(framework, index)
    kept = [
        r
        for r in releases
        if (low is None or r.parsed >= low.parsed) and (high is None or r.parsed <= high.parsed)
    ]
    if not kept:
        span = f"{low.version if low else 'the oldest'} to {high.version if high else 'the newest'}"
        raise UsageError(f"no {framework} release of the sweep's list lies in {span}")
    return sorted(dict.fromkeys(kept), key=lambda r: r.parsed)
