"""Reproducible ``.tar.gz`` writing, shared by ``portbench publish`` and ``portbench pack``.

The same members give the same archive, byte for byte, on any machine and at any time:
one fixed mtime (``SOURCE_DATE_EPOCH`` when set, else 0), owner 0:0 with no names, modes
0644/0755, PAX format, and a gzip header with neither a file name nor a time. The caller
adds members in sorted order; what goes in, and under which names, is its own business.
The file is written whole or not at all (:func:`archive_file`): a failure half-way leaves
no partial archive, and an archive already there stays as it was.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .writable import cannot_write, make_dir, require_writable

__all__ = ["ReproducibleTar", "archive_file", "reproducible_tar", "source_date_epoch"]


def source_date_epoch() -> int:
    """The one mtime of every member: reproducible builds' convention, else the epoch."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "")
    return int(value) if value.isdigit() else 0


class ReproducibleTar:
    """An open archive that adds folders and files with nothing of this machine in them."""

    def __init__(self, tar: tarfile.TarFile, mtime: int) -> None:
        self._tar = tar
        self._mtime = mtime

    def _info(self, name: str, kind: bytes, size: int) -> tarfile.TarInfo:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.size = size
        info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
        info.mtime = self._mtime
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    def add_folder(self, name: str) -> None:
        self._tar.addfile(self._info(name, tarfile.DIRTYPE, 0))

    def add_file(self, name: str, data: bytes) -> None:
        self._tar.addfile(self._info(name, tarfile.REGTYPE, len(data)), io.BytesIO(data))


@contextmanager
def reproducible_tar(handle: IO[bytes]) -> Iterator[ReproducibleTar]:
    """A reproducible gzip-compressed tar written onto ``handle``, finished on leaving."""
    mtime = source_date_epoch()
    # filename="" and mtime: the gzip header otherwise holds the archive's name and the time.
    gz = gzip.GzipFile(filename="", mode="wb", fileobj=handle, mtime=mtime)
    with gz, tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        yield ReproducibleTar(tar, mtime)


@contextmanager
def archive_file(path: Path, hint: str) -> Iterator[IO[bytes]]:
    """A handle whose bytes become ``path`` (mode 0644) when the block ends, or nothing does.

    They go to a temporary file beside ``path``, renamed over it at the end; any failure
    removes it. An OSError is one sentence naming ``path``, with ``hint`` (how to fix it).
    """
    require_writable(path.parent, hint)
    make_dir(path.parent, hint, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            # mkstemp makes it 0600; the mode is set on the open file, never by path.
            os.fchmod(handle.fileno(), 0o644)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise cannot_write(path, exc, hint) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
