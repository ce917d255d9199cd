"""``portbench frequency``: stream a corpus, count each enumerated name, write a JSON file.

Memory stays flat: one file is held at a time, and the counters are bounded by the size of
the enumeration, not of the corpus.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ..documents import check_document
from ..errors import ResultsError, UsageError
from .corpus import CorpusSource, file_sha256
from .enumerate import Enumeration
from .provenance import portbench_identity
from .usage import NameIndex, count_file

__all__ = [
    "FREQUENCY_SCHEMA",
    "Frequency",
    "NameFrequency",
    "corpus_description",
    "count_corpus",
    "load_frequency",
    "write_frequency",
]

#: Schema history: 1 — first version (uses and identifier_uses per name; corpus hash).
#: Added since, optional (readers of schema 1 ignore them): ``portbench`` (version, commit),
#: ``enumeration.cell`` (the walk's profile, image, lock), the corpus's study/stand-in role.
FREQUENCY_SCHEMA = 1
MAX_FILE_BYTES = 1_000_000
_REFRESH_FILES = 250


@dataclass(frozen=True)
class NameFrequency:
    """How often one enumerated name is used: resolved ``uses``, study-style ``identifier_uses``."""

    name: str
    kind: str
    uses: int
    identifier_uses: int


@dataclass(frozen=True)
class Frequency:
    """A frequency file as read back: what ``portbench sample`` draws from."""

    path: Path
    sha256: str
    framework: str
    corpus: dict[str, Any]
    enumeration: dict[str, Any]
    names: tuple[NameFrequency, ...]
    counts: dict[str, int] = field(default_factory=dict)
    file_filter: str | None = None
    """``imports`` or ``study``; None in files written before the choice existed (imports)."""
    limit: int | None = None


def _progress(console: Console) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        TextColumn("{task.completed} files, {task.fields[matched]} import the framework"),
        TextColumn("{task.fields[rate]:.0f} files/s, {task.fields[mb]:.1f} MB"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def count_corpus(
    corpus: CorpusSource,
    enumeration: Enumeration,
    console: Console | None = None,
    limit: int | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    file_filter: str = "imports",
) -> dict[str, Any]:
    """Stream ``corpus`` and return the frequency document for ``enumeration``'s names;
    ``file_filter`` picks the files counted (``usage.FILE_FILTERS``), ``limit`` stops
    after that many kept files (a slice of a large corpus)."""
    index = NameIndex.build(enumeration.framework, ((n.name, n.aliases) for n in enumeration.names))
    uses: Counter[str] = Counter()
    identifiers: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    corpus_hash = hashlib.sha256()
    started = time.perf_counter()
    progress = _progress(console or Console(stderr=True))
    task = progress.add_task(f"counting {enumeration.framework}", matched=0, rate=0.0, mb=0.0)
    with progress:
        for source in corpus.files():
            if limit is not None and counts["files_matched"] >= limit:
                break
            counts["files_read"] += 1
            counts["bytes_read"] += len(source.data)
            corpus_hash.update(
                f"{source.path}\0{hashlib.sha256(source.data).hexdigest()}\n".encode()
            )
            if len(source.data) > max_file_bytes:
                counts["files_too_large"] += 1
                continue
            usage = count_file(source.data, index, file_filter)
            if usage is not None:
                counts["files_matched"] += 1
                counts[f"files_{usage.method}"] += 1
                uses.update(usage.uses)
                identifiers.update(usage.identifiers)
            if counts["files_read"] % _REFRESH_FILES == 0:
                elapsed = max(time.perf_counter() - started, 1e-9)
                progress.update(
                    task,
                    completed=counts["files_read"],
                    matched=counts["files_matched"],
                    rate=counts["files_read"] / elapsed,
                    mb=counts["bytes_read"] / 1e6,
                )
        elapsed = time.perf_counter() - started
        progress.update(
            task,
            completed=counts["files_read"],
            matched=counts["files_matched"],
            rate=counts["files_read"] / max(elapsed, 1e-9),
            mb=counts["bytes_read"] / 1e6,
        )
    if counts["files_read"] == 0:
        raise UsageError(f"{corpus.source}: no Python files found; check the corpus path")
    description = corpus_description(corpus)
    corpus_info: dict[str, Any] = {
        "source": corpus.source,
        "kind": corpus.kind,
        "study_corpus": corpus.is_study_corpus,
        "description": description,
        "sha256": corpus_hash.hexdigest(),
    }
    if corpus.kind in ("zip", "tar", "rows"):
        corpus_info["archive_sha256"] = file_sha256(Path(corpus.source))
    if corpus.kind in ("dataset", "rows"):
        corpus_info.update(
            split=corpus.split,
            text_field=corpus.text_field,
            revision=corpus.revision,
            datasets_version=_datasets_version(),
        )
    return {
        "schema": FREQUENCY_SCHEMA,
        "kind": "frequency",
        "framework": enumeration.framework,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "enumeration": {
            "path": str(enumeration.path),
            "sha256": enumeration.sha256,
            "version": enumeration.version,
            "python": enumeration.python,
            # Which cell walked the API (profile, image, lock); None for older files.
            "cell": enumeration.cell or None,
        },
        "portbench": portbench_identity(),
        "corpus": corpus_info,
        "filter": index.pattern(file_filter).pattern.decode(),
        "file_filter": file_filter,
        "limit": limit,
        "counts": {k: counts[k] for k in sorted(counts)},
        "elapsed_s": round(elapsed, 3),
        "names": [
            {
                "name": n.name,
                "kind": n.kind,
                "uses": uses[n.name],
                "identifier_uses": identifiers[n.name.rsplit(".", 1)[-1]],
            }
            for n in enumeration.names
        ],
    }


def _datasets_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("datasets")
    except Exception:  # not installed, or metadata unreadable: nothing to record
        return None


def corpus_description(corpus: CorpusSource) -> str:
    """One phrase saying which corpus a count (and any table made from it) came from."""
    if corpus.is_study_corpus:
        return f"CodeParrot-clean, the study's corpus ({corpus.source}), streamed"
    what = {
        "directory": "folder",
        "zip": "archive",
        "tar": "archive",
        "dataset": "dataset",
        "rows": "local row file",
    }[corpus.kind]
    return f"{what} {corpus.source}: an offline stand-in, not the study's CodeParrot-clean"


def write_frequency(path: Path, document: dict[str, Any]) -> None:
    """Create ``path`` (never overwrite) holding ``document``."""
    try:
        with open(path, "x", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1)
            handle.write("\n")
    except FileExistsError:
        raise UsageError(
            f"{path} exists; choose a new --out file (nothing is overwritten)"
        ) from None


def load_frequency(path: Path) -> Frequency:
    """Read a frequency file; errors say which file and what to do."""
    try:
        data = path.read_bytes()
        doc = json.loads(data)
    except OSError:
        raise UsageError(
            f"{path}: cannot read the frequency file; run portbench frequency first"
        ) from None
    except ValueError:
        raise UsageError(
            f"{path}: not JSON, so not a frequency file; pass the output of portbench frequency"
        ) from None
    doc = check_document(
        doc,
        path,
        "frequency",
        FREQUENCY_SCHEMA,
        "frequency file",
        hint="pass the output of portbench frequency",
        schema_hint="upgrade portbench or regenerate the file",
        schema_error=ResultsError,
    )
    try:
        names = tuple(
            NameFrequency(str(r["name"]), str(r["kind"]), int(r["uses"]), int(r["identifier_uses"]))
            for r in doc["names"]
        )
    except (KeyError, TypeError, ValueError):
        raise ResultsError(
            f"{path}: malformed 'names'; regenerate it with portbench frequency"
        ) from None
    return Frequency(
        path=path,
        sha256=hashlib.sha256(data).hexdigest(),
        framework=str(doc.get("framework", "")),
        corpus=dict(doc.get("corpus", {})),
        enumeration=dict(doc.get("enumeration", {})),
        names=names,
        counts=dict(doc.get("counts") or {}),
        file_filter=doc.get("file_filter"),
        limit=doc.get("limit"),
    )
