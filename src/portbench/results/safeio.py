"""Files a cell's records live in, opened without ever following a link, read within bounds.

Everything a cell produces is untrusted input to the host: a case may have planted a link
where the host expects a file, or written a file too large to read. Every open here uses
``O_NOFOLLOW`` (a link is refused, not followed), checks that it got a regular file, and
reads no more than a stated number of bytes.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from portbench_runner.contract import DOCUMENT, dumps, read_json, strict

from ..errors import ResultsError

__all__ = [
    "DiskFull",
    "append_line",
    "create_whole",
    "dumps_strict",
    "loads_strict",
    "open_nofollow",
    "read_bounded",
    "strict",
    "write_new",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class DiskFull(ResultsError):
    """A write did not complete (no space, a quota, a file size limit); nothing partial was kept."""


def dumps_strict(value: Any) -> str:
    """One line of standard JSON (non-finite numbers by name), keys sorted."""
    return dumps(strict(value))


def loads_strict(text: str | bytes) -> object:
    """A document through the contract's one bounded reader (size, depth, keys, numbers);
    ``ValueError`` (the reader's ``LineRefused``) for anything it refuses."""
    return read_json(text, DOCUMENT)


def open_nofollow(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that refuses a link at ``path`` and anything but a regular file."""
    try:
        fd = os.open(path, flags | _NOFOLLOW | _CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ResultsError(
                f"{path} is a symbolic link, which portbench never follows in a run "
                "directory; remove it (a case or another program put it there)"
            ) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ResultsError(f"{path} is not a regular file; remove it and resume")
    return fd


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """The whole file, refusing links and files over ``max_bytes``."""
    fd = open_nofollow(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise ResultsError(
                f"{path} holds {size} bytes, over the {max_bytes} this file may have; "
                "it was not written by portbench"
            )
        chunks = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:
            raise ResultsError(f"{path} grew past {max_bytes} bytes while being read")
        return data
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes, path: Path) -> None:
    """Write ``data`` whole, or undo what was written and raise ``DiskFull``."""
    start = os.lseek(fd, 0, os.SEEK_END)
    written = 0
    try:
        while written < len(data):
            count = os.write(fd, data[written:])
            if count <= 0:
                raise OSError(errno.ENOSPC, "short write")
            written += count
        os.fsync(fd)
    except OSError as exc:
        # Nothing partial is left behind: the file goes back to its last whole line.
        try:
            os.ftruncate(fd, start)
        except OSError:
            pass
        raise DiskFull(
            f"writing {path} failed ({exc.strerror or exc}); nothing partial was kept: free "
            "space (or raise the quota) and resume the cell"
        ) from None


def append_line(fd: int, value: object, path: Path) -> bytes:
    """Append ``value`` (strict JSON already: a typed record's ``to_json``) as one line to the
    file open at ``fd`` (O_APPEND); the bytes written."""
    data = (dumps(value) + "\n").encode("utf-8")
    _write_all(fd, data, path)
    return data


def create_whole(path: Path, data: bytes) -> None:
    """Create ``path`` holding ``data`` whole, or not at all: written to a temporary file
    beside it and linked into place, so no reader (and no later run) ever finds a partial
    file, even where this process dies mid-write. Never replaces a file (FileExistsError)."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = open_nofollow(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        try:
            _write_all(fd, data, path)
        finally:
            os.close(fd)
        os.link(temp, path)
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass


def write_new(path: Path, value: Any) -> bool:
    """Create ``path`` (never replace it) holding ``value`` as indented JSON; False if it exists."""
    try:
        fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return False
    try:
        text = json.dumps(strict(value), indent=2, sort_keys=True, allow_nan=False) + "\n"
        _write_all(fd, text.encode("utf-8"), path)
    except DiskFull:
        os.close(fd)
        os.unlink(path)
        raise
    os.close(fd)
    return True
