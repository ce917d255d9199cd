"""A framework release named directly (``jax==0.6.2``), and its form in image tags.

A release is one published version of a framework, as its index names it: the public
version only (``torch==2.4.1``, never ``2.4.1+cpu``: which build a cell installs is the
lock's business and is recorded there). Docker tags allow ``[A-Za-z0-9_.-]`` only, so a
release's tag is ``<framework>-<version>`` (``jax-0.6.2``): a normalized PEP 440 version
holds only digits, letters and dots, and framework names hold no dash, so the tag reads
back to the same release.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ..errors import UsageError
from ..manifest import FRAMEWORKS

__all__ = ["Release", "parse_release", "release_from_tag"]

_TAG = re.compile(r"^(?P<framework>[a-z]+)-(?P<version>[0-9][0-9a-z.]*)$")
# The plain form, read before packaging's parser so a bad version gets its own sentence.
_PINNED = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_.\-]*)\s*==\s*(?P<version>[^\s,;=<>!~*]+)$")


@dataclass(frozen=True, order=True)
class Release:
    """One framework release: ``framework`` is one of portbench's frameworks."""

    framework: str
    version: str
    """Normalized (``packaging``'s ``str(Version(...))``): ``0.6.2``, ``2.15.0.post1``."""

    @property
    def pin(self) -> str:
        """``jax==0.6.2``: how records, messages and locks name it."""
        return f"{self.framework}=={self.version}"

    @property
    def tag(self) -> str:
        """``jax-0.6.2``: the form Docker accepts in a tag (and a directory name)."""
        return f"{self.framework}-{self.version}"

    @property
    def parsed(self) -> Version:
        return Version(self.version)

    def __str__(self) -> str:
        return self.pin


def _version(text: str, where: str) -> str:
    try:
        version = Version(text)
    except InvalidVersion:
        raise UsageError(
            f"{where}: '{text}' is not a version (e.g. 0.6.2, 2.15.0, 2.18.0rc1)"
        ) from None
    if version.local is not None:
        raise UsageError(
            f"{where}: name the release without a build ('{version.public}', not '{text}'); "
            "the lock records which build a cell installs (torch: the +cpu build where "
            "PyTorch's index answers)"
        )
    if version.epoch:
        raise UsageError(f"{where}: releases with a version epoch ('{text}') are not supported")
    return str(version)


def _check_name(name: str, given: str, framework: str | None, where: str) -> None:
    if name not in FRAMEWORKS:
        raise UsageError(f"{where}: '{given}' is not a framework ({', '.join(FRAMEWORKS)})")
    if framework is not None and name != framework:
        raise UsageError(f"{where} names {name}, but this command is for {framework}")


def parse_release(text: str, framework: str | None = None) -> Release:
    """``jax==0.6.2`` (or ``0.6.2`` when ``framework`` is given, or the tag ``jax-0.6.2``).

    Anything but one framework pinned with ``==`` to one version is one sentence.
    """
    text = text.strip()
    where = f"release '{text}'"
    tagged = _TAG.match(text)
    if tagged and tagged.group("framework") in FRAMEWORKS:
        return release_from_tag(text)
    if text[:1].isdigit():
        if framework is None:
            raise UsageError(
                f"{where} names no framework: write it as FRAMEWORK==VERSION (e.g. jax==0.6.2)"
            )
        return Release(framework, _version(text, where))
    pinned = _PINNED.match(text)
    if pinned:
        name = canonicalize_name(pinned.group("name"))
        _check_name(name, pinned.group("name"), framework, where)
        return Release(name, _version(pinned.group("version"), where))
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        raise UsageError(
            f"{where} is not of the form FRAMEWORK==VERSION (e.g. jax==0.6.2, torch==2.4.1)"
        ) from None
    name = canonicalize_name(requirement.name)
    _check_name(name, requirement.name, framework, where)
    if requirement.extras or requirement.marker or requirement.url:
        raise UsageError(
            f"{where}: name the release alone, without extras, markers or a URL (e.g. {name}==0.6.2)"
        )
    specifiers = list(requirement.specifier)
    if len(specifiers) != 1 or specifiers[0].operator != "==" or "*" in specifiers[0].version:
        raise UsageError(
            f"{where} must pin exactly one version with '==' (e.g. {name}==0.6.2); a range "
            "names no single release"
        )
    return Release(name, _version(specifiers[0].version, where))


def release_from_tag(tag: str) -> Release:
    """The release whose :attr:`Release.tag` is ``tag``."""
    match = _TAG.match(tag)
    if match is None or match.group("framework") not in FRAMEWORKS:
        raise UsageError(f"'{tag}' is not a release tag (form: jax-0.6.2)")
    release = Release(match.group("framework"), _version(match.group("version"), f"tag '{tag}'"))
    if release.tag != tag:
        raise UsageError(f"'{tag}' is not a normalized release tag (did you mean {release.tag}?)")
    return release
