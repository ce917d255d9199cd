"""What an index serves of a project: its files, versions and upload times.

Read through the index's JSON simple API (PEP 691, with PEP 700's upload times), the API pip
and uv use, once per project per process. Everything read is an index's answer, so it is
bounded (size) and checked (types) before use; a file whose name is not a valid wheel or
sdist name is left out.
"""

from __future__ import annotations

import json
import os
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from ..errors import EnvironmentBuildError

__all__ = ["PYPI_SIMPLE", "IndexFile", "IndexUnavailable", "Project", "fetch_project"]

PYPI_SIMPLE = "https://pypi.org/simple"
_ACCEPT = "application/vnd.pypi.simple.v1+json"
# torch's listing, the largest of the three, is a few MB; anything past this is not a listing.
MAX_LISTING_BYTES = 64 * 1024 * 1024
TIMEOUT_S = 30.0


class IndexUnavailable(EnvironmentBuildError):
    """An index could not be read (network, HTTP error, not a PEP 691 listing)."""


@dataclass(frozen=True)
class IndexFile:
    filename: str
    version: Version
    upload_time: datetime | None
    """PEP 700's upload time, where the index gives it."""
    requires_python: str | None
    yanked: bool
    size: int | None

    @property
    def is_wheel(self) -> bool:
        return self.filename.endswith(".whl")


@dataclass(frozen=True)
class Project:
    name: str
    index: str
    files: tuple[IndexFile, ...]

    def files_of(self, version: Version | str) -> list[IndexFile]:
        """The files of ``version`` that are not yanked."""
        wanted = Version(str(version))
        return [f for f in self.files if f.version == wanted and not f.yanked]

    def releases(self, prereleases: bool = False) -> list[Version]:
        """Every version with a file that is not yanked, oldest first."""
        versions = {f.version for f in self.files if not f.yanked}
        return sorted(v for v in versions if prereleases or not v.is_prerelease)

    def first_upload(self, version: Version | str) -> datetime | None:
        """When the release's first file was uploaded: the day it came out."""
        times = [f.upload_time for f in self.files_of(version) if f.upload_time is not None]
        return min(times) if times else None


def _context() -> ssl.SSLContext:
    # The CA bundle pip is told to use (a TLS-intercepting proxy's), else the system's.
    bundle = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    return ssl.create_default_context(cafile=bundle if bundle and os.path.isfile(bundle) else None)


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _file(entry: Any) -> IndexFile | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("filename"), str):
        return None
    name = entry["filename"]
    try:
        if name.endswith(".whl"):
            version = parse_wheel_filename(name)[1]
        else:
            version = parse_sdist_filename(name)[1]
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None
    requires = entry.get("requires-python")
    size = entry.get("size")
    return IndexFile(
        filename=name,
        version=version,
        upload_time=_time(entry.get("upload-time")),
        requires_python=requires if isinstance(requires, str) else None,
        # PEP 592: yanked is false or true or the reason, a string.
        yanked=bool(entry.get("yanked")),
        size=size if isinstance(size, int) and size >= 0 else None,
    )


def parse_listing(name: str, index: str, payload: bytes) -> Project:
    """A project from its PEP 691 JSON listing (bad entries left out)."""
    try:
        data = json.loads(payload)
    except ValueError:
        raise IndexUnavailable(
            f"{index}/{name}/ did not answer with a JSON listing (PEP 691); use an index that does"
        ) from None
    entries = data.get("files") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise IndexUnavailable(f"{index}/{name}/ answered without a list of files")
    files = tuple(f for f in map(_file, entries) if f is not None)
    return Project(name, index, files)


@cache
def fetch_project(name: str, index: str = PYPI_SIMPLE) -> Project:
    """The project ``name`` as ``index`` lists it (read once per process)."""
    name = canonicalize_name(name)
    url = f"{index.rstrip('/')}/{name}/"
    request = urllib.request.Request(url, headers={"Accept": _ACCEPT})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S, context=_context()) as response:
            payload = response.read(MAX_LISTING_BYTES + 1)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return Project(name, index, ())
        raise IndexUnavailable(f"{url} answered HTTP {exc.code}; try again later") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise IndexUnavailable(
            f"the index {index} cannot be reached ({reason}); release locks are resolved "
            "from it: check the network, or use a lock committed under images/locks/releases/"
        ) from None
    if len(payload) > MAX_LISTING_BYTES:
        raise IndexUnavailable(f"{url} answered more than {MAX_LISTING_BYTES} bytes")
    return parse_listing(name, index.rstrip("/"), payload)
