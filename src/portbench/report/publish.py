"""``portbench publish``: the report folder as one reproducible ``.tar.gz``.

The same report gives the same archive, byte for byte, on any machine and at any time:
members in sorted order, one fixed mtime (``SOURCE_DATE_EPOCH`` when set, else 0), owner
0:0 with no names, modes 0644/0755, and a gzip header with neither a file name nor a time.
Member names are relative (``report/...``); links are left out, since their targets would
carry this machine's paths. ``CONTENTS.json`` (sha256 per file) is written into the
archive only, so a read-only report folder can be published.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import stat
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ResultsError
from ..writable import cannot_write, make_dir, require_writable

__all__ = ["ARCHIVE_ROOT", "CONTENTS", "PublishResult", "publish"]

ARCHIVE_ROOT = "report"
CONTENTS = "CONTENTS.json"
_HINT = "pass --out with a path in a directory you can write"


@dataclass(frozen=True)
class PublishResult:
    archive: Path
    files: int
    links_left_out: list[str]


def _mtime() -> int:
    """The one mtime of every member: reproducible builds' convention, else the epoch."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "")
    return int(value) if value.isdigit() else 0


def _info(name: str, kind: bytes, size: int, mtime: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = size
    info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    info.mtime = mtime
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def _walk(folder: Path) -> tuple[list[str], list[str], list[str]]:
    """Relative POSIX names of the folder's directories and regular files, sorted, and of
    what is neither (links, sockets), which is left out."""
    dirs: list[str] = []
    files: list[str] = []
    other: list[str] = []
    for path in folder.rglob("*"):
        name = path.relative_to(folder).as_posix()
        mode = path.lstat().st_mode
        if stat.S_ISDIR(mode):
            dirs.append(name)
        elif stat.S_ISREG(mode) and name != CONTENTS:
            files.append(name)
        elif not stat.S_ISREG(mode):
            other.append(name)
    return sorted(dirs), sorted(files), sorted(other)


def write_archive(folder: Path, handle: io.BufferedIOBase) -> tuple[int, list[str]]:
    """The reproducible archive of ``folder`` onto ``handle``; (files packed, links left out)."""
    mtime = _mtime()
    dirs, files, other = _walk(folder)
    contents: dict[str, str] = {}
    # filename="" and mtime: the gzip header otherwise holds the archive's name and the time.
    gz = gzip.GzipFile(filename="", mode="wb", fileobj=handle, mtime=mtime)
    with gz, tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(_info(ARCHIVE_ROOT, tarfile.DIRTYPE, 0, mtime))
        for name in dirs:
            tar.addfile(_info(f"{ARCHIVE_ROOT}/{name}", tarfile.DIRTYPE, 0, mtime))
        for name in files:
            data = (folder / name).read_bytes()
            contents[name] = hashlib.sha256(data).hexdigest()
            info = _info(f"{ARCHIVE_ROOT}/{name}", tarfile.REGTYPE, len(data), mtime)
            tar.addfile(info, io.BytesIO(data))
        listing = (json.dumps({"schema": 1, "files": contents}, indent=2) + "\n").encode()
        info = _info(f"{ARCHIVE_ROOT}/{CONTENTS}", tarfile.REGTYPE, len(listing), mtime)
        tar.addfile(info, io.BytesIO(listing))
    return len(files), other


def publish(folder: Path, archive: Path) -> PublishResult:
    """Pack ``folder`` (a report) into ``archive``, replacing it whole or not at all."""
    if not (folder / "index.html").is_file():
        raise ResultsError(f"{folder} holds no report; run `portbench report` first")
    if archive.resolve().is_relative_to(folder.resolve()):
        raise ResultsError(f"{archive} is inside the report it packs; {_HINT} outside {folder}")
    require_writable(archive.parent, _HINT)
    make_dir(archive.parent, _HINT, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{archive.name}.", dir=archive.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            files, other = write_archive(folder, handle)
            # mkstemp makes it 0600; the mode is set on the open file, never by path.
            os.fchmod(handle.fileno(), 0o644)
        os.replace(temporary, archive)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise cannot_write(archive, exc, _HINT) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return PublishResult(archive, files, other)
