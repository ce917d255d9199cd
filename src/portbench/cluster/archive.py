"""A finished cell as one archive: packed on the node, checked on the head before it lands.

The archive is an uncompressed tar whose first member, ``CONTENTS.json``, lists every other
member with its size and sha256. Everything in it comes from a machine the head does not
control, so :func:`unpack_checked` trusts nothing: the archive and each member are bounded,
only regular files and folders under the names a cell writes are accepted (no links, no
devices, no absolute or ``..`` paths, no name twice), every byte is hashed against the
list, and the files are written with exclusive, link-refusing opens into a fresh folder.
The hashes catch a cut or corrupted transfer; they cannot make a lying node honest (it
writes the list too), which is why :mod:`.landing` then reads the records through the
typed results layer and keeps only what belongs to the cell's plan.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import ResultsError
from ..results.safeio import dumps_strict, loads_strict, open_nofollow, read_bounded

__all__ = [
    "CONTENTS",
    "MAX_ARCHIVE_BYTES",
    "ArchiveRefused",
    "CheckedCell",
    "pack_cell",
    "unpack_checked",
]

CONTENTS = "CONTENTS.json"
#: A cell of every case with its warm samples is a few MB; logs are capped per case.
MAX_ARCHIVE_BYTES = 256 << 20
MAX_MEMBERS = 4096
MAX_FILE_BYTES = 128 << 20
#: The files a cell directory holds, and the one folder (logs/) that holds more.
TOP_FILES = frozenset({"plan.json", "env.json", "results.jsonl", "sessions.jsonl"})
LOGS = "logs"
MAX_DEPTH = 4


class ArchiveRefused(ResultsError):
    """What a node sent back is not a cell archive the head accepts; nothing of it landed."""


@dataclass(frozen=True)
class CheckedCell:
    """An archive unpacked into ``folder`` after every check passed."""

    folder: Path
    files: dict[str, int]
    """relative path -> size, as listed and as found."""


def _members(cell_dir: Path) -> Iterator[tuple[str, Path]]:
    """(archive name, path) of each regular file a cell directory holds; links are left out."""
    for name in sorted(TOP_FILES):
        path = cell_dir / name
        if path.is_file() and not path.is_symlink():
            yield name, path
    logs = cell_dir / LOGS
    if logs.is_dir() and not logs.is_symlink():
        for root, dirs, files in os.walk(logs, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not (Path(root) / d).is_symlink())
            for file in sorted(files):
                path = Path(root) / file
                if path.is_file() and not path.is_symlink():
                    yield path.relative_to(cell_dir).as_posix(), path


def pack_cell(cell_dir: Path) -> bytes:
    """The cell's files as one tar: ``CONTENTS.json`` first, then each file it lists."""
    payload: list[tuple[str, bytes]] = []
    total = 0
    for name, path in _members(cell_dir):
        data = read_bounded(path, MAX_FILE_BYTES)
        total += len(data)
        if total > MAX_ARCHIVE_BYTES // 2:
            break  # logs beyond this would not be accepted anyway; the records come first
        payload.append((name, data))
    contents = {
        "schema": 1,
        "kind": "cell-archive",
        "files": {
            name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in payload
        },
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in [(CONTENTS, dumps_strict(contents).encode()), *payload]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _safe_name(name: str) -> str:
    """The member name if it is a plain relative path a cell writes, else refuse it."""
    path = PurePosixPath(name)
    parts = path.parts
    if (
        not parts
        or path.is_absolute()
        or any(p in ("", ".", "..") for p in parts)
        or "\\" in name
        or "\x00" in name
        or len(parts) > MAX_DEPTH
        or len(name) > 255
    ):
        raise ArchiveRefused(f"the archive holds the path {name[:80]!r}, which a cell never writes")
    if len(parts) == 1 and parts[0] not in TOP_FILES and parts[0] != CONTENTS:
        raise ArchiveRefused(f"the archive holds {name[:80]!r}, which is not a file of a cell")
    if len(parts) > 1 and parts[0] != LOGS:
        raise ArchiveRefused(f"the archive holds {name[:80]!r}, outside the cell's logs/")
    return path.as_posix()


def _contents(tar: tarfile.TarFile, member: tarfile.TarInfo) -> dict[str, dict[str, object]]:
    if member.name != CONTENTS or not member.isfile() or member.size > 1 << 20:
        raise ArchiveRefused(f"the archive does not start with {CONTENTS}")
    handle = tar.extractfile(member)
    assert handle is not None
    try:
        document = loads_strict(handle.read(member.size + 1))
    except (UnicodeDecodeError, ValueError):
        raise ArchiveRefused(f"the archive's {CONTENTS} is not JSON") from None
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, dict) or len(files) > MAX_MEMBERS:
        raise ArchiveRefused(f"the archive's {CONTENTS} lists no files")
    for name, entry in files.items():
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("size"), int)
            and isinstance(entry.get("sha256"), str)
        ):
            raise ArchiveRefused(f"the archive's {CONTENTS} entry for {str(name)[:80]!r} is bad")
    return files


def _write_exclusive(path: Path, data: bytes) -> None:
    fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def unpack_checked(data: Any, folder: Path) -> CheckedCell:
    """Check the archive ``data`` and write its files into ``folder`` (new; made here)."""
    if not isinstance(data, bytes) or len(data) > MAX_ARCHIVE_BYTES:
        raise ArchiveRefused(
            f"the node sent back no archive within {MAX_ARCHIVE_BYTES >> 20} MiB of bytes"
        )
    folder.mkdir(mode=0o755)
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
    except tarfile.TarError as exc:
        raise ArchiveRefused(f"the node's archive cannot be read as a tar ({exc})") from None
    found: dict[str, int] = {}
    with tar:
        try:
            members = tar.getmembers()
        except tarfile.TarError as exc:
            raise ArchiveRefused(f"the node's archive is damaged ({exc})") from None
        if not members or len(members) > MAX_MEMBERS + 1:
            raise ArchiveRefused("the node's archive is empty or holds too many members")
        listed = _contents(tar, members[0])
        total = 0
        for member in members[1:]:
            name = _safe_name(member.name)
            if member.isdir():
                continue
            if not member.isfile() or stat.S_IFMT(member.mode) not in (0, stat.S_IFREG):
                raise ArchiveRefused(f"{name[:80]!r} in the archive is not a regular file")
            if name in found:
                raise ArchiveRefused(f"{name[:80]!r} is twice in the archive")
            entry = listed.get(name)
            if entry is None:
                raise ArchiveRefused(f"{name[:80]!r} is in the archive but not in {CONTENTS}")
            total += member.size
            if member.size != entry["size"] or member.size > MAX_FILE_BYTES:
                raise ArchiveRefused(f"{name[:80]!r} has not the size {CONTENTS} lists")
            if total > MAX_ARCHIVE_BYTES:
                raise ArchiveRefused("the archive's files add up to more than it may hold")
            handle = tar.extractfile(member)
            body = handle.read(member.size + 1) if handle is not None else b""
            if len(body) != entry["size"] or hashlib.sha256(body).hexdigest() != entry["sha256"]:
                raise ArchiveRefused(f"{name[:80]!r} does not hash to what {CONTENTS} lists")
            target = folder.joinpath(*PurePosixPath(name).parts)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                _write_exclusive(target, body)
            except (OSError, ResultsError):
                raise ArchiveRefused(f"{name[:80]!r} collides with another member") from None
            found[name] = len(body)
    missing = sorted(set(listed) - set(found))
    if missing:
        raise ArchiveRefused(f"{CONTENTS} lists {missing[0][:80]!r}, which the archive lacks")
    return CheckedCell(folder, found)
