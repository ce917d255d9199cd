"""``portbench publish``: the report folder as one reproducible ``.tar.gz``.

The same report gives the same archive, byte for byte, on any machine and at any time:
members in sorted order, one fixed mtime (``SOURCE_DATE_EPOCH`` when set, else 0), owner
0:0 with no names, modes 0644/0755, and a gzip header with neither a file name nor a time.
Member names are relative (``report/...``); links are left out, since their targets would
carry this machine's paths. ``CONTENTS.json`` (sha256 per file) is written into the
archive only, so a read-only report folder can be published.
"""

from __future__ import annotations

import hashlib
import json
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import ResultsError
from ..tarpack import archive_file, reproducible_tar

__all__ = ["ARCHIVE_ROOT", "CONTENTS", "PublishResult", "publish"]

ARCHIVE_ROOT = "report"
CONTENTS = "CONTENTS.json"
_HINT = "pass --out with a path in a directory you can write"


@dataclass(frozen=True)
class PublishResult:
    archive: Path
    files: int
    links_left_out: list[str]


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


def write_archive(folder: Path, handle: IO[bytes]) -> tuple[int, list[str]]:
    """The reproducible archive of ``folder`` onto ``handle``; (files packed, links left out)."""
    dirs, files, other = _walk(folder)
    contents: dict[str, str] = {}
    with reproducible_tar(handle) as tar:
        tar.add_folder(ARCHIVE_ROOT)
        for name in dirs:
            tar.add_folder(f"{ARCHIVE_ROOT}/{name}")
        for name in files:
            data = (folder / name).read_bytes()
            contents[name] = hashlib.sha256(data).hexdigest()
            tar.add_file(f"{ARCHIVE_ROOT}/{name}", data)
        listing = (json.dumps({"schema": 1, "files": contents}, indent=2) + "\n").encode()
        tar.add_file(f"{ARCHIVE_ROOT}/{CONTENTS}", listing)
    return len(files), other


def publish(folder: Path, archive: Path) -> PublishResult:
    """Pack ``folder`` (a report) into ``archive``, replacing it whole or not at all."""
    if not (folder / "index.html").is_file():
        raise ResultsError(f"{folder} holds no report; run `portbench report` first")
    if archive.resolve().is_relative_to(folder.resolve()):
        raise ResultsError(f"{archive} is inside the report it packs; {_HINT} outside {folder}")
    with archive_file(archive, _HINT) as handle:
        files, other = write_archive(folder, handle)
    return PublishResult(archive, files, other)
