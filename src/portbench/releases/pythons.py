"""The Pythons a release can run on: those the base images offer, newest first.

A release cell runs on the newest of these its wheels support (JAX 0.11 needs 3.12 or
newer, so it runs on trixie's 3.13; TensorFlow 2.11 stops at 3.10, so it runs on
bullseye's 3.9). A wheel fits a base when one of its tags is one that base's CPython
accepts: the interpreter and ABI, and a manylinux platform no newer than the base's glibc,
for this machine's architecture.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from functools import cache

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import InvalidWheelFilename, parse_wheel_filename

from ..images.base import GLIBC, SUITES, base_image_name

__all__ = ["BASE_PYTHONS", "BasePython", "machine_arch", "wheel_fits"]

# uv's --python-platform knows manylinux tags up to 2_40: a newer glibc resolves as 2_40.
UV_NEWEST_MANYLINUX = 40
# The old manylinux names, by the glibc minor they stand for (PEP 600).
_LEGACY = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}


@dataclass(frozen=True)
class BasePython:
    """One base image's Python: ``3.13`` on Debian ``trixie`` (glibc 2.41)."""

    python: str
    suite: str
    glibc: tuple[int, int]

    @property
    def version(self) -> tuple[int, int]:
        major, minor = self.python.split(".")
        return int(major), int(minor)

    @property
    def public_base(self) -> str:
        """The slim image a user with a registry pulls."""
        return f"python:{self.python}-slim-{self.suite}"

    @property
    def local_base(self) -> str:
        """The debootstrap base `portbench images base` makes (no registry needed)."""
        return base_image_name(self.suite)

    def uv_platform(self, arch: str | None = None) -> str:
        """uv's ``--python-platform`` for a wheel that must run on this base."""
        minor = min(self.glibc[1], UV_NEWEST_MANYLINUX)
        return f"{arch or machine_arch()}-manylinux_{self.glibc[0]}_{minor}"


#: Newest first: the order in which a release's Pythons are tried.
BASE_PYTHONS: tuple[BasePython, ...] = tuple(
    sorted(
        (BasePython(python, suite, GLIBC[suite]) for suite, python in SUITES.items()),
        key=lambda base: base.version,
        reverse=True,
    )
)


def machine_arch() -> str:
    """This machine's architecture as wheel tags spell it (``x86_64``, ``aarch64``)."""
    arch = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(arch, arch)


@cache
def _accepted(base: BasePython, arch: str) -> frozenset[Tag]:
    glibc_major, glibc_minor = base.glibc
    platforms = []
    for minor in range(glibc_minor, 4, -1):
        platforms.append(f"manylinux_{glibc_major}_{minor}_{arch}")
        if minor in _LEGACY:
            platforms.append(f"{_LEGACY[minor]}_{arch}")
    tags = set(cpython_tags(base.version, platforms=platforms))
    tags |= set(compatible_tags(base.version, f"cp{base.version[0]}{base.version[1]}", platforms))
    return frozenset(tags)


def wheel_fits(
    filename: str, requires_python: str | None, base: BasePython, arch: str | None = None
) -> bool:
    """Whether the wheel ``filename`` installs on ``base`` (its tags and Requires-Python)."""
    try:
        _, _, _, tags = parse_wheel_filename(filename)
    except InvalidWheelFilename:
        return False
    if not tags & _accepted(base, arch or machine_arch()):
        return False
    if requires_python:
        try:
            return SpecifierSet(requires_python).contains(f"{base.python}.0")
        except InvalidSpecifier:
            return True  # a malformed Requires-Python is the installer's business
    return True
