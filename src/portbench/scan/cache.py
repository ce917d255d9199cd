"""What was read of each file, kept across scans and keyed by the file's content.

Reading (parsing, one walk over the tree) is most of a scan; a file that has not changed
since the last scan reads the same. With ``--cache DIR`` a file's facts are kept in DIR
under the SHA-256 of its kind and bytes, in a folder of their own for each reader: the
facts of another portbench reader (its code changed), another Python (another ``ast``) or
other API maps (other method names kept) are never mixed in. Entries are written whole
(a temporary file renamed) and checked when read: a damaged or foreign entry is a miss,
read again from the file. Nothing is ever deleted here: removing DIR clears the cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from . import facts as facts_module
from . import notebook as notebook_module
from .facts import FileFacts, from_wire, to_wire

__all__ = ["CACHE_FORMAT", "FactsCache"]

CACHE_FORMAT = 1
_MAGIC = b"PBSCANFACTS1\n"
_DIGEST = 32
#: An entry larger than this is not read (the facts of a 5 MB file take a few MB).
MAX_ENTRY_BYTES = 256 << 20


def reader_key(interesting: frozenset[str] | None) -> str:
    """What makes two readings of the same bytes equal: the cache's format, this Python,
    the code that reads files and notebooks, and the method names kept."""
    digest = hashlib.sha256()
    digest.update(f"{CACHE_FORMAT}\0{sys.version}\0".encode())
    for module in (facts_module, notebook_module):
        digest.update(Path(str(module.__file__)).read_bytes())
    digest.update(b"\0" if interesting is None else "\0".join(sorted(interesting)).encode())
    return digest.hexdigest()[:20]


@dataclass(frozen=True)
class FactsCache:
    """One reader's folder of a cache (picklable: workers get it whole)."""

    folder: Path

    @classmethod
    def open(cls, root: Path, interesting: frozenset[str] | None) -> FactsCache:
        folder = root / reader_key(interesting)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(
                f"--cache {root}: cannot make the folder ({exc.strerror or exc}); "
                "pass a folder this user can write"
            ) from None
        return cls(folder)

    def _path(self, kind: str, data: bytes) -> Path:
        name = hashlib.sha256(kind.encode() + b"\0" + data).hexdigest()
        return self.folder / name[:2] / name

    def load(self, rel: str, kind: str, data: bytes) -> FileFacts | None:
        """The facts kept for these bytes, as the facts of ``rel``; None on a miss."""
        path = self._path(kind, data)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            with os.fdopen(fd, "rb") as handle:
                entry = handle.read(MAX_ENTRY_BYTES + 1)
            head, digest = entry[: len(_MAGIC)], entry[len(_MAGIC) : len(_MAGIC) + _DIGEST]
            payload = entry[len(_MAGIC) + _DIGEST :]
            if head != _MAGIC or hashlib.sha256(payload).digest() != digest:
                return None
            found = from_wire(marshal.loads(payload))
        except (OSError, ValueError, EOFError, TypeError):
            return None
        found.rel = rel
        found.cached = True
        return found

    def store(self, kind: str, data: bytes, facts: FileFacts) -> None:
        """Keep ``facts`` for these bytes; a cache that cannot be written is left as it is
        (the scan goes on: the next one reads the file again)."""
        path = self._path(kind, data)
        payload = marshal.dumps(("", *to_wire(facts)[1:]))  # kept without its path
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(exist_ok=True)
            with open(temporary, "wb") as handle:
                handle.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
