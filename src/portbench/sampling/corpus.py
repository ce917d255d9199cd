"""Stream the Python files of a corpus one at a time: a folder, an archive, or a dataset.

Every source yields ``SourceFile`` objects lazily, so memory does not grow with the corpus:
a folder is walked, an archive is read member by member (tar in stream mode), and a
dataset of rows (one file's text per row) is streamed with ``datasets`` (an optional
dependency): by name from the Hugging Face hub (the study's corpus, CodeParrot-clean, is
``codeparrot/codeparrot-clean``), or from local row files in the same format (its shards
are ``file-*.json.gz``: JSON lines with ``repo_name``, ``path``, ``content``, ...).
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

__all__ = ["STUDY_DATASET", "CorpusSource", "SourceFile", "file_sha256", "open_corpus"]

#: The corpus the study counted uses in (paper, section 2.1 and appendix 9).
STUDY_DATASET = "codeparrot/codeparrot-clean"
PYTHON_SUFFIXES = (".py", ".pyw")
ZIP_SUFFIXES = (".zip", ".whl")
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
#: Local row files, read by ``datasets``' packaged loaders as the hub's files are.
ROW_SUFFIXES = {
    ".jsonl": "json",
    ".jsonl.gz": "json",
    ".json": "json",
    ".json.gz": "json",
    ".parquet": "parquet",
}


@dataclass(frozen=True)
class SourceFile:
    """One Python file of a corpus: where it came from and its raw bytes."""

    path: str
    data: bytes


@dataclass(frozen=True)
class CorpusSource:
    """A corpus to stream: ``kind`` is ``directory``, ``zip``, ``tar``, ``dataset`` (a hub
    name) or ``rows`` (a local row file that ``datasets`` streams as it streams the hub's)."""

    source: str
    kind: str
    split: str = "train"
    text_field: str = "content"
    path_field: str = "path"
    revision: str | None = None
    """A dataset's git revision on the hub (a commit pins the corpus); None: its newest."""

    @property
    def is_study_corpus(self) -> bool:
        """The study's own corpus, streamed from the hub; anything else is a stand-in."""
        return self.kind == "dataset" and self.source == STUDY_DATASET

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


def open_corpus(
    source: str,
    split: str = "train",
    text_field: str = "content",
    revision: str | None = None,
) -> CorpusSource:
    """Decide what ``source`` is: an existing folder, archive or row file, else a dataset name."""
    path = Path(source)
    if revision is not None and (path.exists() or source.count("/") != 1):
        raise UsageError(f"--revision names a version of a hub dataset, and {source} is not one")
    if path.is_dir():
        return CorpusSource(str(path), "directory")
    if path.is_file():
        name = path.name.lower()
        if name.endswith(ZIP_SUFFIXES):
            return CorpusSource(str(path), "zip")
        if name.endswith(TAR_SUFFIXES):
            return CorpusSource(str(path), "tar")
        if name.endswith(tuple(ROW_SUFFIXES)):
            return CorpusSource(str(path), "rows", split="train", text_field=text_field)
        allowed = ZIP_SUFFIXES + TAR_SUFFIXES + tuple(ROW_SUFFIXES)
        raise UsageError(
            f"{source}: unknown corpus file type (allowed: a folder, {', '.join(allowed)}, "
            f"or a Hugging Face dataset name such as {STUDY_DATASET})"
        )
    if source.count("/") == 1 and not source.startswith((".", "/")):
        return CorpusSource(
            source, "dataset", split=split, text_field=text_field, revision=revision
        )
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


def _row_path(row: dict[str, object], corpus: CorpusSource, index: int) -> str:
    """A row's name in the corpus hash: CodeParrot's rows name their repository and path
    (the path alone repeats across repositories); other datasets, the path or the index."""
    path = row.get(corpus.path_field)
    if not path:
        return f"#{index}"
    repository = row.get("repo_name")
    return f"{repository}/{path}" if repository else str(path)


def _open_stream(corpus: CorpusSource) -> Any:
    import datasets

    if corpus.kind == "rows":
        loader = next(v for k, v in ROW_SUFFIXES.items() if corpus.source.lower().endswith(k))
        return datasets.load_dataset(
            loader, data_files=[corpus.source], split="train", streaming=True
        )
    return datasets.load_dataset(
        corpus.source, split=corpus.split, streaming=True, revision=corpus.revision
    )


def _dataset_files(corpus: CorpusSource) -> Iterator[SourceFile]:
    try:
        import datasets  # noqa: F401  (imported here only to say what is missing)
    except ImportError:
        raise UsageError(
            f"{corpus.source} is read with the 'datasets' library, which is not installed; "
            "pip install 'portbench[corpus]' or pass a folder or archive"
        ) from None
    try:
        # One row at a time: the hub's corpus is ~5 million files, streamed, never stored.
        for index, row in enumerate(_open_stream(corpus)):
            text = row.get(corpus.text_field)
            if not isinstance(text, str):
                raise UsageError(
                    f"{corpus.source}: rows have no text field {corpus.text_field!r}; "
                    "name it with --text-field"
                )
            yield SourceFile(_row_path(row, corpus, index), text.encode())
    except UsageError:
        raise
    except Exception as exc:  # datasets raises many types for network and hub failures
        first = (str(exc).strip().splitlines() or [""])[0]
        raise UsageError(
            f"cannot stream {corpus.source} ({type(exc).__name__}: {first}); check the name "
            "and the network, or pass a folder, an archive or local row files"
        ) from None
