"""What a ``docker save`` tar says it holds, read before the engine sees it.

``docker load`` tags every name the saved tar lists: ``RepoTags`` in ``manifest.json``,
the legacy ``repositories`` file, and the name annotations of an OCI ``index.json``. An
archive whose ``export.json`` names one tag could carry an image.tar that lists others too,
and loading it would move them (a base image, any cell image). So the tar is read once as
a stream, hashed as it goes, and every name it lists is collected, with the image id its
manifest points to; :mod:`.archive` refuses it whole unless that is one image of one tag.
"""

from __future__ import annotations

import hashlib
import json
import tarfile
from dataclasses import dataclass, field
from typing import IO, Any

__all__ = ["SavedImage", "SavedImageDamaged", "read_saved_image"]

#: manifest.json, repositories and index.json are small: a few KB for one image.
MAX_INDEX_BYTES = 1 << 20
_INDEXES = ("manifest.json", "repositories", "index.json")
CHUNK = 1 << 20


class SavedImageDamaged(ValueError):
    """The saved tar does not read as one (cut short, corrupted, or not a tar)."""


@dataclass
class SavedImage:
    sha256: str = ""
    size: int = 0
    names: set[str] = field(default_factory=set)
    """Every image name the tar lists (``repo:tag``), wherever docker load would read one."""
    config_ids: list[str] = field(default_factory=list)
    """The image id (``sha256:...``) of each image manifest.json lists."""
    problems: list[str] = field(default_factory=list)


class _Hashing:
    """A reader that hashes what passes through it."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.digest = hashlib.sha256()
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.digest.update(data)
        self.size += len(data)
        return data

    def drain(self) -> None:
        while self.read(CHUNK):
            pass


def _short_name(name: str) -> str:
    """``docker.io/library/x:t`` -> ``x:t`` (as docker shows and as export.json names it)."""
    for prefix in ("docker.io/library/", "docker.io/", "index.docker.io/library/"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _from_manifest(document: Any, saved: SavedImage) -> None:
    if not isinstance(document, list):
        saved.problems.append("its manifest.json is not a list of images")
        return
    for entry in document:
        if not isinstance(entry, dict):
            saved.problems.append("its manifest.json lists something that is not an image")
            continue
        tags = entry.get("RepoTags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            saved.problems.append("its manifest.json has RepoTags that are not names")
            continue
        saved.names.update(_short_name(t) for t in tags)
        config = entry.get("Config")
        if isinstance(config, str):
            digest = config.rsplit("/", 1)[-1].removesuffix(".json")
            saved.config_ids.append(f"sha256:{digest}")


def _from_repositories(document: Any, saved: SavedImage) -> None:
    if not isinstance(document, dict):
        saved.problems.append("its repositories file is not a mapping")
        return
    for repo, tags in document.items():
        if not isinstance(tags, dict):
            saved.problems.append("its repositories file is malformed")
            continue
        saved.names.update(_short_name(f"{repo}:{tag}") for tag in tags)


def _from_index(document: Any, saved: SavedImage) -> None:
    manifests = document.get("manifests") if isinstance(document, dict) else None
    if not isinstance(manifests, list):
        saved.problems.append("its index.json lists no manifests")
        return
    for entry in manifests:
        notes = entry.get("annotations") if isinstance(entry, dict) else None
        if not isinstance(notes, dict):
            continue
        name = notes.get("io.containerd.image.name")
        if isinstance(name, str):
            saved.names.add(_short_name(name))
        ref = notes.get("org.opencontainers.image.ref.name")
        if isinstance(ref, str) and name is None:
            # A bare reference (a tag alone) names an image too: kept as it is, so it can
            # only match an export whose tag is exactly that.
            saved.names.add(ref)


_READERS = {
    "manifest.json": _from_manifest,
    "repositories": _from_repositories,
    "index.json": _from_index,
}


def read_saved_image(handle: IO[bytes]) -> SavedImage:
    """Hash the saved tar read from ``handle`` and collect the names it lists.

    Raises :class:`SavedImageDamaged` where it does not read as a tar to its end.
    """
    reader = _Hashing(handle)
    saved = SavedImage()
    seen: set[str] = set()
    try:
        with tarfile.open(fileobj=reader, mode="r|") as tar:  # type: ignore[call-overload]
            for member in tar:
                name = member.name.removeprefix("./")
                if name not in _INDEXES:
                    continue
                if name in seen:
                    saved.problems.append(f"its {name} is there twice")
                    continue
                seen.add(name)
                if not member.isfile() or member.size > MAX_INDEX_BYTES:
                    saved.problems.append(f"its {name} is not a small file")
                    continue
                body = tar.extractfile(member)
                try:
                    document = json.loads(body.read() if body is not None else b"")
                except ValueError:
                    saved.problems.append(f"its {name} is not JSON")
                    continue
                _READERS[name](document, saved)
        reader.drain()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SavedImageDamaged(str(exc) or type(exc).__name__) from None
    if "manifest.json" not in seen:
        saved.problems.append("it holds no manifest.json")
    saved.sha256 = reader.digest.hexdigest()
    saved.size = reader.size
    return saved
