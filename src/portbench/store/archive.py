"""Cell archives: cells packed on one machine, checked whole before another ingests them.

``portbench pack`` writes a reproducible ``.tar.gz`` (sorted members, one mtime, owner 0:0,
no name or time in the gzip header, as ``publish`` does) holding, per cell, its plan,
env, results and session files as the typed reader read them (a line that did not read is
left out, and said), under ``portbench-cells/cells/<run>/<cell>/``, with
``portbench-cells/CONTENTS.json`` first: the size and sha256 of every other file.

Everything in an archive from elsewhere is untrusted. :func:`check_archive` reads it as a
stream, within bounds, and refuses it whole, in one sentence, on the first thing that is
not as :func:`pack_cells` writes it: a member that is a link or anything but a regular
file or folder, a name outside the layout or twice, a file that CONTENTS.json does not
list (or lists and the archive lacks), a size or hash that differs. The files are written
under names made here (never the archive's) into a fresh folder, and every cell is then
read strictly through the typed layer (:func:`.bundle.read_cell`): a record the reader
refuses refuses the archive. It is stored in one transaction: a refusal, wherever it
comes, rolls back all of it.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from portbench_runner.contract import DOCUMENT, LineRefused, dumps, read_json, strict

from ..results.safeio import open_nofollow
from ..tarpack import reproducible_tar
from .bundle import CellBundle, NotACell, read_cell
from .db import StoreError
from .reading import CellJob

__all__ = [
    "ARCHIVE_ROOT",
    "CELL_FILES",
    "CONTENTS",
    "ArchiveRefused",
    "CheckedArchive",
    "PackResult",
    "check_archive",
    "pack_cells",
    "refused_cell",
]

ARCHIVE_ROOT = "portbench-cells"
CONTENTS = "CONTENTS.json"
CELLS = "cells"
CELL_FILES = ("plan.json", "env.json", "results.jsonl", "sessions.jsonl")
#: Bounds of what an archive may hold, uncompressed.
MAX_MEMBERS = 100_000
MAX_FILE_BYTES = 1 << 30
MAX_TOTAL_BYTES = 8 << 30
MAX_CONTENTS_BYTES = 64 << 20
_CHUNK = 1 << 20
#: A run or cell folder's name as portbench writes them (shown, never used as a path).
_FOLDER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=+\-]{0,199}$")


class ArchiveRefused(StoreError):
    """An archive that is not as ``portbench pack`` writes it: refused whole."""


# -- packing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PackResult:
    archive: Path
    cells: int
    records: int
    left_out: list[str] = field(default_factory=list)
    """Cells not packed, and lines left out, each with why."""


def _lines(items: list[object]) -> bytes:
    return "".join(dumps(item) + "\n" for item in items).encode("utf-8")


def cell_files(bundle: CellBundle) -> dict[str, bytes]:
    """The files of a cell as the typed reader read them (what an archive carries)."""
    files = {"plan.json": (dumps(bundle.plan.to_json()) + "\n").encode("utf-8")}
    if bundle.env is not None:
        files["env.json"] = (dumps(strict(bundle.env.to_json())) + "\n").encode("utf-8")
    files["results.jsonl"] = _lines([record.to_json() for record in bundle.records])
    files["sessions.jsonl"] = _lines([line.to_json() for line in bundle.sessions])
    return files


def _folder_name(text: str, fallback: str) -> str:
    return text if _FOLDER.match(text) else fallback


def pack_cells(cell_dirs: list[Path], handle: IO[bytes]) -> tuple[int, int, list[str]]:
    """Write the archive of ``cell_dirs`` onto ``handle``: (cells, records, left out)."""
    payload: dict[str, bytes] = {}
    left_out: list[str] = []
    records = 0
    for index, path in enumerate(cell_dirs):
        try:
            bundle = read_cell(path, strict=False)
        except NotACell as exc:
            left_out.append(str(exc))
            continue
        if bundle.skipped:
            left_out.append(f"{path}: {bundle.skipped} line(s) that do not read left out")
        run = _folder_name(bundle.run_id, "run")
        cell = _folder_name(bundle.cell_dir, f"cell-{index}")
        prefix = f"{CELLS}/{run}/{cell}"
        if any(name.startswith(prefix + "/") for name in payload):
            prefix = f"{CELLS}/{run}/{cell}-{index}"
        for name, data in cell_files(bundle).items():
            payload[f"{prefix}/{name}"] = data
        records += len(bundle.records)
    contents = {
        "schema": 1,
        "kind": "cells-archive",
        "files": {
            name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in sorted(payload.items())
        },
    }
    listing = (dumps(contents) + "\n").encode("utf-8")
    folders = sorted(
        {str(p) for name in payload for p in PurePosixPath(name).parents if str(p) != "."}
    )
    with reproducible_tar(handle) as tar:
        tar.add_file(f"{ARCHIVE_ROOT}/{CONTENTS}", listing)
        for folder in folders:
            tar.add_folder(f"{ARCHIVE_ROOT}/{folder}")
        for name in sorted(payload):
            tar.add_file(f"{ARCHIVE_ROOT}/{name}", payload[name])
    cells = len({str(PurePosixPath(name).parent) for name in payload})
    return cells, records, left_out


# -- checking --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckedArchive:
    """An archive whose layout, list and hashes passed, its cells written under names made
    here; each is then read strictly (:meth:`jobs`), and any refusal refuses the archive."""

    cells: tuple[tuple[str, str, Path], ...]
    """(run, cell, folder) of each cell: the archive's names, and where its files are."""
    sha256: str

    def jobs(self) -> list[CellJob]:
        return [CellJob(folder, True, run, cell) for run, cell, folder in self.cells]


def _refuse(archive: Path, why: str) -> ArchiveRefused:
    return ArchiveRefused(
        f"{archive} was refused whole and nothing of it stored: {why}; ingest only archives "
        "that portbench pack wrote, as it wrote them"
    )


def _split(name: str) -> tuple[str, str, str] | None:
    """(run, cell, file) of a cell file's member name, None for CONTENTS.json; raises
    ValueError for any other name."""
    path = PurePosixPath(name)
    parts = path.parts
    if (
        path.is_absolute()
        or not parts
        or parts[0] != ARCHIVE_ROOT
        or any(p in ("", ".", "..") for p in parts)
        or "\\" in name
        or "\x00" in name
    ):
        raise ValueError(f"the member {name[:80]!r} is outside {ARCHIVE_ROOT}/")
    rest = parts[1:]
    if rest == (CONTENTS,):
        return None
    if (
        len(rest) == 4
        and rest[0] == CELLS
        and rest[3] in CELL_FILES
        and _FOLDER.match(rest[1])
        and _FOLDER.match(rest[2])
    ):
        return rest[1], rest[2], rest[3]
    raise ValueError(f"the member {name[:80]!r} is not a file of a cell archive")


def _folder_ok(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return (
        1 <= len(parts) <= 4
        and parts[0] == ARCHIVE_ROOT
        and (len(parts) == 1 or parts[1] == CELLS)
        and all(_FOLDER.match(p) for p in parts[2:])
        and ".." not in parts
    )


def _read_contents(
    tar: tarfile.TarFile, member: tarfile.TarInfo | None
) -> dict[str, tuple[int, str]]:
    if member is None or member.name != f"{ARCHIVE_ROOT}/{CONTENTS}" or not member.isreg():
        raise ValueError(f"it does not start with {ARCHIVE_ROOT}/{CONTENTS}")
    if member.size > MAX_CONTENTS_BYTES:
        raise ValueError(f"its {CONTENTS} is over {MAX_CONTENTS_BYTES} bytes")
    handle = tar.extractfile(member)
    data = handle.read(member.size + 1) if handle is not None else b""
    try:
        document = read_json(data, DOCUMENT)
    except LineRefused as exc:
        raise ValueError(f"its {CONTENTS} does not read ({exc})") from None
    files = document.get("files") if isinstance(document, dict) else None
    if (
        not isinstance(document, dict)
        or document.get("kind") != "cells-archive"
        or document.get("schema") != 1
        or not isinstance(files, dict)
    ):
        raise ValueError(f"its {CONTENTS} is not the list of a cells archive (schema 1)")
    listed: dict[str, tuple[int, str]] = {}
    for name, entry in files.items():
        size = entry.get("size") if isinstance(entry, dict) else None
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        if not isinstance(size, int) or isinstance(size, bool) or not isinstance(digest, str):
            raise ValueError(
                f"its {CONTENTS} entry for {str(name)[:80]!r} is not a size and a hash"
            )
        listed[f"{ARCHIVE_ROOT}/{name}"] = (size, digest)
    return listed


def _copy_checked(source: IO[bytes], target: Path, size: int) -> str:
    """Copy ``size`` bytes of ``source`` into a new file; their sha256."""
    digest = hashlib.sha256()
    fd = open_nofollow(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        left = size
        while left > 0:
            chunk = source.read(min(_CHUNK, left))
            if not chunk:
                raise ValueError("a member is cut short")
            digest.update(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
            left -= len(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def _members(tar: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    count = 0
    while True:
        member = tar.next()
        if member is None:
            return
        count += 1
        if count > MAX_MEMBERS:
            raise ValueError(f"it holds more than {MAX_MEMBERS} members")
        yield member


def _unpack(archive: Path, staging: Path) -> tuple[dict[tuple[str, str], Path], str]:
    """Check the archive's layout, list and hashes while writing its files under names made
    here: {(run, cell): folder}, and the archive's own sha256."""
    cells: dict[tuple[str, str], Path] = {}
    seen: set[str] = set()
    total = 0
    whole = hashlib.sha256()
    fd = open_nofollow(archive, os.O_RDONLY)
    with os.fdopen(fd, "rb") as raw:
        for chunk in iter(lambda: raw.read(_CHUNK), b""):
            whole.update(chunk)
        raw.seek(0)
        with tarfile.open(fileobj=raw, mode="r:*") as tar:
            members = _members(tar)
            listed = _read_contents(tar, next(members, None))
            for member in members:
                name = member.name.rstrip("/")
                if member.isdir():
                    if not _folder_ok(name):
                        raise ValueError(f"the folder {name[:80]!r} is not of a cell archive")
                    continue
                if member.issym() or member.islnk():
                    raise ValueError(f"the member {name[:80]!r} is a link")
                if not member.isreg():
                    raise ValueError(f"the member {name[:80]!r} is not a regular file")
                where = _split(name)
                if where is None:
                    raise ValueError(f"{CONTENTS} is in it twice")
                if name in seen:
                    raise ValueError(f"the member {name[:80]!r} is in it twice")
                seen.add(name)
                if name not in listed:
                    raise ValueError(
                        f"{name[:80]!r} is in it but not in {CONTENTS} (an extra file)"
                    )
                size, digest = listed[name]
                total += member.size
                if member.size != size or size > MAX_FILE_BYTES or total > MAX_TOTAL_BYTES:
                    raise ValueError(f"{name[:80]!r} is not of the size {CONTENTS} lists")
                run, cell, file = where
                folder = cells.get((run, cell))
                if folder is None:
                    folder = staging / f"run{len(cells):05d}" / "cell"
                    folder.mkdir(parents=True)
                    cells[(run, cell)] = folder
                source = tar.extractfile(member)
                if source is None or _copy_checked(source, folder / file, size) != digest:
                    raise ValueError(
                        f"{name[:80]!r} does not hash to what {CONTENTS} lists (a changed file)"
                    )
    missing = sorted(set(listed) - seen)
    if missing:
        raise ValueError(f"{CONTENTS} lists {missing[0][:80]!r}, which it lacks")
    return cells, whole.hexdigest()


def check_archive(archive: Path, staging: Path) -> CheckedArchive:
    """Every check of an archive from elsewhere but the reading of its cells; ``staging``
    is a new, empty folder for its files. Raises :class:`ArchiveRefused` in one sentence."""
    try:
        cells, digest = _unpack(archive, staging)
    except (ValueError, tarfile.TarError, EOFError, OSError, gzip.BadGzipFile) as exc:
        raise _refuse(archive, str(exc) or type(exc).__name__) from None
    if not cells:
        raise _refuse(archive, "it holds no cell")
    for (run, cell), folder in cells.items():
        if not (folder / "plan.json").exists():
            raise _refuse(archive, f"the cell {run}/{cell} has no plan.json")
    return CheckedArchive(tuple((r, c, f) for (r, c), f in sorted(cells.items())), digest)


def refused_cell(archive: Path, exc: Exception) -> ArchiveRefused:
    """The archive's refusal for a cell the typed reader refused."""
    return _refuse(archive, f"the cell {exc}")
