"""Stream the Python files of a corpus one at a time: a folder, an archive, or a dataset.

Every source yields ``SourceFile`` objects lazily, so memory does not grow with the corpus:
a folder is walked, an archive is read member by member (tar in stream mode), and a
Hugging Face dataset is streamed with ``datasets`` (an optional dependency).
"""

from __future__ import annotations

import hashlib
import os
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError

__all__ = ["CorpusSource", "SourceFile", "file_sha256", "open_corpus"]

PYTHON_SUFFIXES = (".py", ".pyw")
ZIP_SUFFIXES = (".zip", ".whl")
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")


@dataclass(frozen=True)
class SourceFile:
    """One Python file of a corpus: where it came from and its raw bytes."""

    path: str
    data: bytes


@dataclass(frozen=True)
class CorpusSource:
    """A corpus to stream: ``kind`` is ``directory``, ``zip``, ``tar`` or ``dataset``."""

    source: str
    kind: str
    split: str = "train"
    text_field: str = "content"
    path_field: str = "path"

    def files(self) -> Iterator[SourceFile]:
        """Yield the corpus's Python files in a fixed order (the order defines its hash)."""
        if self.kind == "directory":
            return _directory_files(Path(self.source))
        if self.kind == "zip":
            return _zip_files(Path(self.source))
        if self.kind == "tar":
            return _tar_files(Path(self.source))
        return _dataset_files(self)


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def open_corpus(source: str, split: str = "train", text_field: str = "content") -> CorpusSource:
    """Decide what ``source`` is: an existing folder or archive, else a dataset name."""
    path = Path(source)
    if path.is_dir():
        return CorpusSource(str(path), "directory")
    if path.is_file():
        name = path.name.lower()
        if name.endswith(ZIP_SUFFIXES):
            return CorpusSource(str(path), "zip")
        if name.endswith(TAR_SUFFIXES):
            return CorpusSource(str(path), "tar")
        raise UsageError(
            f"{source}: unknown corpus file type (allowed: a folder, "
            f"{', '.join(ZIP_SUFFIXES + TAR_SUFFIXES)}, or a Hugging Face dataset name)"
        )
    if source.count("/") == 1 and not source.startswith((".", "/")):
        return CorpusSource(source, "dataset", split=split, text_field=text_field)
    raise UsageError(f"{source}: no such folder or archive, and not a dataset name like owner/name")


def _directory_files(root: Path) -> Iterator[SourceFile]:
    for folder, dirs, files in os.walk(root):
        dirs.sort()  # os.walk descends in this order: sorting makes the corpus order fixed
        for name in sorted(files):
            if name.endswith(PYTHON_SUFFIXES):
                path = Path(folder) / name
                try:
                    data = path.read_bytes()
                except OSError:
                    continue
                yield SourceFile(str(path.relative_to(root)), data)


def _zip_files(path: Path) -> Iterator[SourceFile]:
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir() and info.filename.endswith(PYTHON_SUFFIXES):
                    yield SourceFile(info.filename, archive.read(info))
    except zipfile.BadZipFile:
        raise UsageError(f"{path}: not a readable zip archive; check the download") from None


def _tar_files(path: Path) -> Iterator[SourceFile]:
    try:
        # Stream mode ("r|*") reads members in order without building the member list.
        with tarfile.open(path, "r|*") as archive:
            for member in archive:
                if member.isfile() and member.name.endswith(PYTHON_SUFFIXES):
                    handle = archive.extractfile(member)
                    if handle is not None:
                        yield SourceFile(member.name, handle.read())
    except tarfile.TarError:
        raise UsageError(f"{path}: not a readable tar archive; check the download") from None


def _dataset_files(corpus: CorpusSource) -> Iterator[SourceFile]:
    try:
        import datasets
    except ImportError:
        raise UsageError(
            f"{corpus.source} looks like a dataset name but the 'datasets' library is not "
            "installed; pip install 'portbench[corpus]' or pass a folder or archive"
        ) from None
    try:
        stream: Any = datasets.load_dataset(corpus.source, split=corpus.split, streaming=True)
        for index, row in enumerate(stream):
            text = row.get(corpus.text_field)
            if not isinstance(text, str):
                raise UsageError(
                    f"{corpus.source}: rows have no text field {corpus.text_field!r}; "
                    "name it with --text-field"
                )
            yield SourceFile(str(row.get(corpus.path_field) or f"#{index}"), text.encode())
    except UsageError:
        raise
    except Exception as exc:  # datasets raises many types for network and hub failures
        raise UsageError(
            f"cannot stream dataset {corpus.source} ({type(exc).__name__}: {exc}); "
            "check the name and the network, or pass a folder or archive"
        ) from None
