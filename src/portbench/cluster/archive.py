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

Packing is bounded too, so that a cell directory a case filled (100,000 files, a 5 GB
sparse file) still ships its records: the cell's own files go first, each within its bound
(a results or sessions file past it is cut at its last whole line); logs follow while the
archive has room, members and bytes; everything else is left out and listed in
``CONTENTS.json``. The head writes that list, checked, as ``logs/left-out.json`` of the cell.
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
from ..results.safeio import dumps_strict, loads_strict, open_nofollow

__all__ = [
    "CONTENTS",
    "LEFT_OUT",
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
#: What the node packs of each of the cell's own files (the archive must hold them all).
OWN_FILE_BYTES = {
    "plan.json": 16 << 20,
    "env.json": 8 << 20,
    "results.jsonl": 96 << 20,
    "sessions.jsonl": 8 << 20,
}
#: One log file larger than this is left out (never read: it may be sparse and huge).
MAX_LOG_FILE_BYTES = 32 << 20
#: Entries of logs/ looked at before the rest is only counted as not looked at.
MAX_WALK_ENTRIES = 500_000
#: How many left-out files are named (the rest are counted).
MAX_LEFT_OUT_LISTED = 1000
#: CONTENTS.json at its largest: every member and every listed left-out file, 255-character
#: names each, fits well within this.
MAX_CONTENTS_BYTES = 4 << 20
#: The head's list of what the node left out, in the landed cell's logs folder.
LEFT_OUT = "logs/left-out.json"


class ArchiveRefused(ResultsError):
    """What a node sent back is not a cell archive the head accepts; nothing of it landed."""


@dataclass(frozen=True)
class CheckedCell:
    """An archive unpacked into ``folder`` after every check passed."""

    folder: Path
    files: dict[str, int]
    """relative path -> size, as listed and as found."""
    left_out: tuple[dict[str, Any], ...] = ()
    """What the node says it left out (checked: path text, size, why), never a path here."""
    left_out_more: int = 0


def _read_prefix(path: Path, limit: int) -> tuple[bytes, int]:
    """Up to ``limit`` bytes of ``path`` (links refused) and its size: never more is read."""
    fd = open_nofollow(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), size
    finally:
        os.close(fd)


class _Packing:
    """What goes into the archive, and what is left out and why."""

    def __init__(self) -> None:
        self.payload: list[tuple[str, bytes]] = []
        self.total = 0
        self.left_out: list[dict[str, Any]] = []
        self.left_out_count = 0

    def leave_out(self, name: str, size: int, why: str) -> None:
        self.left_out_count += 1
        if len(self.left_out) < MAX_LEFT_OUT_LISTED:
            self.left_out.append({"path": name[:255], "size": size, "why": why})

    def add(self, name: str, data: bytes) -> None:
        self.payload.append((name, data))
        self.total += len(data)


def _own_file(packing: _Packing, cell_dir: Path, name: str) -> None:
    """One of the cell's own files, within its bound: a JSON-lines file past it is cut at
    its last whole line (the records before the cut land); any other is left out."""
    path = cell_dir / name
    if path.is_symlink() or not path.is_file():
        return
    limit = OWN_FILE_BYTES[name]
    try:
        data, size = _read_prefix(path, limit + 1)
    except (OSError, ResultsError):
        packing.leave_out(name, 0, "unreadable")
        return
    if len(data) <= limit:
        packing.add(name, data)
        return
    if name.endswith(".jsonl"):
        kept = data[: data.rfind(b"\n", 0, limit) + 1]
        packing.add(name, kept)
        packing.leave_out(name, size, f"cut after {len(kept)} bytes (whole lines)")
    else:
        packing.leave_out(name, size, f"over {limit >> 20} MiB")


def _log_files(cell_dir: Path, packing: _Packing) -> Iterator[tuple[str, Path, int]]:
    """(archive name, path, size) of each regular file under logs/, links never followed;
    a walk past ``MAX_WALK_ENTRIES`` counts the rest as left out without looking."""
    logs = cell_dir / LOGS
    if logs.is_symlink() or not logs.is_dir():
        return
    seen = 0
    stack = [logs]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                items = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        for entry in items:
            seen += 1
            if seen > MAX_WALK_ENTRIES:
                packing.leave_out(f"{LOGS}/...", 0, "not looked at (too many entries)")
                return
            path = Path(entry.path)
            name = path.relative_to(cell_dir).as_posix()
            if entry.is_dir(follow_symlinks=False):
                stack.append(path)
            elif entry.is_file(follow_symlinks=False):
                try:
                    size = entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
                yield name, path, size
        stack.sort(reverse=True)


def _log(packing: _Packing, name: str, path: Path, size: int, room: int) -> None:
    try:
        _safe_name(name)
    except ArchiveRefused:
        packing.leave_out(name, size, "a name a cell archive does not carry")
        return
    if len(packing.payload) >= MAX_MEMBERS:
        packing.leave_out(name, size, f"more than {MAX_MEMBERS} files")
    elif size > MAX_LOG_FILE_BYTES:
        packing.leave_out(name, size, f"over {MAX_LOG_FILE_BYTES >> 20} MiB")
    elif packing.total + size > room:
        packing.leave_out(name, size, "the archive was full")
    else:
        try:
            data, _ = _read_prefix(path, size)
        except (OSError, ResultsError):
            packing.leave_out(name, size, "unreadable")
            return
        packing.add(name, data)


def pack_cell(cell_dir: Path) -> bytes:
    """The cell's files as one tar: ``CONTENTS.json`` first, then each file it lists.

    The cell's own files always go in (within their bounds); logs follow while there is
    room; what is left out is listed in ``CONTENTS.json`` under ``left_out``.
    """
    packing = _Packing()
    for name in sorted(TOP_FILES):
        _own_file(packing, cell_dir, name)
    room = MAX_ARCHIVE_BYTES // 2
    for name, path, size in _log_files(cell_dir, packing):
        _log(packing, name, path, size, room)
    contents = {
        "schema": 1,
        "kind": "cell-archive",
        "files": {
            name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in packing.payload
        },
        "left_out": packing.left_out,
        "left_out_count": packing.left_out_count,
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in [(CONTENTS, dumps_strict(contents).encode()), *packing.payload]:
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
    if path.as_posix() == LEFT_OUT:
        raise ArchiveRefused(f"the archive holds {LEFT_OUT}, which only the head writes")
    return path.as_posix()


def _left_out(document: dict[str, object]) -> tuple[tuple[dict[str, Any], ...], int]:
    """The node's list of what it left out, kept only as checked text and numbers."""
    listed = document.get("left_out")
    count = document.get("left_out_count")
    entries: list[dict[str, Any]] = []
    for entry in listed[:MAX_LEFT_OUT_LISTED] if isinstance(listed, list) else []:
        if not isinstance(entry, dict):
            continue
        size = entry.get("size")
        entries.append(
            {
                "path": str(entry.get("path"))[:255],
                "size": size if isinstance(size, int) and not isinstance(size, bool) else None,
                "why": str(entry.get("why"))[:80],
            }
        )
    total = count if isinstance(count, int) and not isinstance(count, bool) else len(entries)
    return tuple(entries), max(0, min(total, 1 << 40) - len(entries))


def _contents(tar: tarfile.TarFile, member: tarfile.TarInfo) -> dict[str, object]:
    if member.name != CONTENTS or not member.isfile() or member.size > MAX_CONTENTS_BYTES:
        raise ArchiveRefused(f"the archive does not start with {CONTENTS}")
    handle = tar.extractfile(member)
    assert handle is not None
    try:
        document = loads_strict(handle.read(member.size + 1))
    except (UnicodeDecodeError, ValueError):
        raise ArchiveRefused(f"the archive's {CONTENTS} is not JSON") from None
    if not isinstance(document, dict):
        raise ArchiveRefused(f"the archive's {CONTENTS} lists no files")
    files = document.get("files")
    if not isinstance(files, dict) or len(files) > MAX_MEMBERS:
        raise ArchiveRefused(f"the archive's {CONTENTS} lists no files")
    for name, entry in files.items():
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("size"), int)
            and isinstance(entry.get("sha256"), str)
        ):
            raise ArchiveRefused(f"the archive's {CONTENTS} entry for {str(name)[:80]!r} is bad")
    return dict(document)


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
        document = _contents(tar, members[0])
        files = document["files"]
        assert isinstance(files, dict)  # checked by _contents
        listed: dict[str, dict[str, object]] = files
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
    left_out, more = _left_out(document)
    if left_out or more:
        (folder / LOGS).mkdir(exist_ok=True)
        account = {
            "schema": 1,
            "kind": "left-out",
            "written_by": "head",
            "note": "what the node says it left out of the cell's archive (its bounds)",
            "files": list(left_out),
            "more": more,
        }
        _write_exclusive(folder / LEFT_OUT, (dumps_strict(account) + "\n").encode())
    return CheckedCell(folder, found, left_out, more)
