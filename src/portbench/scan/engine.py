"""A scan from folder to uses: find the files, read each (here and in worker processes), resolve.

Reading a file (parse, collect its facts) needs no other file, so it is spread over
processes when there are enough files for that to pay; resolving needs every file's
facts and runs here, once.
"""

from __future__ import annotations

import gc
import marshal
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PortbenchError
from .apimap import ApiMap
from .cache import FactsCache
from .facts import FileFacts, file_facts, from_wire, to_wire
from .notebook import NotebookError, notebook_code
from .project import ModuleIndex
from .resolve import Resolver, Use
from .walk import MAX_FILE_BYTES, Discovery, ProjectFile, read_file

__all__ = ["ScanOptions", "ScanResult", "paused_gc", "read_one", "scan_project"]

#: Fewer files than this are read in this process: starting workers would cost more.
POOL_MIN_FILES = 200
#: Chunks of files per reading process (see ``_chunks``).
CHUNKS_PER_JOB = 12


@dataclass(frozen=True)
class ScanOptions:
    """How a project is read."""

    jobs: int = 0
    """Processes reading files, this one included; 0: one per CPU (at most 8), 1: this one
    alone."""
    guess_methods: bool = False
    max_file_bytes: int = MAX_FILE_BYTES
    cache: Path | None = None
    """Folder of the facts cache (``--cache``); None: every file is read."""


@dataclass
class ScanResult:
    """What a scan found: the files, their facts, the uses, and what it could not read."""

    discovery: Discovery
    files: list[FileFacts]
    uses: list[Use]
    unparsed: list[tuple[str, str]] = field(default_factory=list)
    """(file, why) of every file that did not parse or could not be read."""
    stats: Counter[str] = field(default_factory=Counter)
    unresolved_methods: Counter[str] = field(default_factory=Counter)
    timings_s: dict[str, float] = field(default_factory=dict)
    cached: int = 0
    """Files whose facts came from the cache."""

    @property
    def by_rel(self) -> dict[str, FileFacts]:
        return {f.rel: f for f in self.files}


def read_one(
    root: Path,
    item: ProjectFile,
    max_file_bytes: int,
    interesting: frozenset[str] | None,
    cache: FactsCache | None = None,
) -> FileFacts:
    """One file's facts (from ``cache`` when it holds these bytes); a file that cannot be
    read or parsed has ``error`` set."""
    try:
        data = read_file(root, item.rel, max_file_bytes)
    except OSError as exc:
        failed = FileFacts(item.rel, item.kind)
        failed.error = f"cannot be read ({exc.strerror or exc})"
        return failed
    if cache is not None:
        kept = cache.load(item.rel, item.kind, data)
        if kept is not None:
            return kept
    facts = _facts_of(item, data, interesting)
    if cache is not None:
        cache.store(item.kind, data, facts)
    return facts


def _facts_of(item: ProjectFile, data: bytes, interesting: frozenset[str] | None) -> FileFacts:
    if item.kind == "notebook":
        try:
            code = notebook_code(data)
        except NotebookError as exc:
            failed = FileFacts(item.rel, item.kind)
            failed.error = f"not a notebook ({exc})"
            return failed
        facts = file_facts(
            item.rel, item.kind, code.source.encode("utf-8"), interesting, line_map=code.origin
        )
        facts.file_lines = code.file_lines
        facts.skipped_cells = code.skipped_cells
        return facts
    return file_facts(item.rel, item.kind, data, interesting)


_WORKER: dict[str, object] = {}


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cycle collector paused: a scan allocates millions of small, acyclic objects
    (syntax trees, tuples, uses, findings) that it would examine again and again for
    nothing (it tripled the time of reading a large project, and cost seconds more while
    the report was built). On leaving, what was made moves to the oldest generation
    unexamined: re-enabling with it all in the youngest would examine it at once."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _init_worker(
    root: str,
    max_file_bytes: int,
    interesting: frozenset[str] | None,
    claims: Any,
    cache: FactsCache | None = None,
) -> None:
    gc.disable()  # the worker lives for one scan; see paused_gc
    _WORKER.update(
        root=Path(root), max=max_file_bytes, interesting=interesting, claims=claims, cache=cache
    )


def _claim(claims: Any, number: int) -> bool:
    """Take chunk ``number`` for the calling process; False if another process has."""
    with claims.get_lock():
        if claims[number]:
            return False
        claims[number] = 1
        return True


def _read_chunk(number: int, items: list[ProjectFile]) -> bytes | None:
    """A worker's facts of chunk ``number``, marshalled (see ``to_wire``); None when the
    scanning process took the chunk first."""
    if not _claim(_WORKER["claims"], number):
        return None
    root = _WORKER["root"]
    assert isinstance(root, Path)
    limit = _WORKER["max"]
    assert isinstance(limit, int)
    interesting = _WORKER["interesting"]
    cache = _WORKER.get("cache")
    return marshal.dumps(
        [to_wire(read_one(root, item, limit, interesting, cache)) for item in items]  # type: ignore[arg-type]
    )


def _jobs(requested: int, files: int) -> int:
    if requested:
        return max(1, requested)
    if files < POOL_MIN_FILES:
        return 1
    return max(1, min(8, os.cpu_count() or 1))


def _chunks(items: list[ProjectFile], jobs: int) -> list[list[ProjectFile]]:
    """Consecutive runs of files of about equal size, ``CHUNKS_PER_JOB`` per process: small
    enough that the processes finish together, large enough that handing one over costs
    little beside reading it."""
    target = max(1, sum(i.size for i in items) // (jobs * CHUNKS_PER_JOB))
    chunks: list[list[ProjectFile]] = [[]]
    size = 0
    for item in items:
        if size >= target:
            chunks.append([])
            size = 0
        chunks[-1].append(item)
        size += item.size
    return chunks


def read_all(
    discovery: Discovery,
    options: ScanOptions,
    interesting: frozenset[str] | None,
    cache: FactsCache | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> list[FileFacts]:
    """Every discovered file's facts, in discovery order.

    With ``jobs`` processes, this one and ``jobs - 1`` workers read: the workers take
    chunks from the front, this process from the back (each chunk is claimed once, in
    memory the processes share), so what this process reads needs no sending at all.
    ``meanwhile`` (evidence that does not depend on the uses) runs in this process once
    the workers have started, before it reads: the workers read while it runs.
    """
    items = discovery.files
    root, limit = discovery.root, options.max_file_bytes
    jobs = _jobs(options.jobs, len(items))
    if jobs == 1 or len(items) < 2:
        if meanwhile is not None:
            meanwhile()
        return [read_one(root, i, limit, interesting, cache) for i in items]
    chunks = _chunks(items, jobs)
    context = multiprocessing.get_context()
    claims = context.Array("b", len(chunks))
    done: list[list[FileFacts] | None] = [None] * len(chunks)
    try:
        with ProcessPoolExecutor(
            max_workers=jobs - 1,
            mp_context=context,
            initializer=_init_worker,
            initargs=(str(root), limit, interesting, claims, cache),
        ) as pool:
            futures = [pool.submit(_read_chunk, n, chunk) for n, chunk in enumerate(chunks)]
            if meanwhile is not None:
                meanwhile()
            for number in range(len(chunks) - 1, -1, -1):
                if not _claim(claims, number):
                    break  # the workers have this chunk: each before it is theirs too
                done[number] = [
                    read_one(root, i, limit, interesting, cache) for i in chunks[number]
                ]
            for number, future in enumerate(futures):
                sent = future.result()
                if done[number] is None:
                    assert sent is not None  # claimed by a worker: read there
                    done[number] = [from_wire(w) for w in marshal.loads(sent)]
    except BrokenProcessPool:
        raise PortbenchError(
            "a worker process reading the project's files ended abruptly (out of memory?); "
            "run the scan again with --jobs 1 to read every file in this process"
        ) from None
    return [facts for chunk in done if chunk is not None for facts in chunk]


def scan_project(
    discovery: Discovery,
    maps: dict[str, ApiMap],
    options: ScanOptions | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> ScanResult:
    """Read and resolve the discovered files against the API maps; ``meanwhile`` runs
    while worker processes read (see :func:`read_all`)."""
    options = options or ScanOptions()
    receivers = {framework: api.receiver_classes() for framework, api in maps.items()}
    names: set[str] = set()
    for framework, api in maps.items():
        names |= api.method_names(receivers[framework])
    started = time.perf_counter()
    with paused_gc():
        return _scan(discovery, maps, options, receivers, frozenset(names), started, meanwhile)


def _scan(
    discovery: Discovery,
    maps: dict[str, ApiMap],
    options: ScanOptions,
    receivers: dict[str, set[str]],
    names: frozenset[str],
    started: float,
    meanwhile: Callable[[], None] | None = None,
) -> ScanResult:
    cache = FactsCache.open(options.cache, names) if options.cache is not None else None
    files = read_all(discovery, options, names, cache, meanwhile)
    read_s = time.perf_counter() - started
    result = ScanResult(discovery=discovery, files=[], uses=[])
    result.cached = sum(1 for f in files if f.cached)
    readable = []
    for facts in files:
        if facts.error is not None:
            result.unparsed.append((facts.rel, facts.error))
        else:
            readable.append(facts)
    result.files = readable
    index = ModuleIndex.build([f.rel for f in readable])
    resolver = Resolver(readable, index, maps, guess=options.guess_methods, receivers=receivers)
    result.uses = resolver.uses()
    result.stats = resolver.stats
    result.unresolved_methods = resolver.unresolved_methods
    result.timings_s = {"read": read_s, "resolve": time.perf_counter() - started - read_s}
    return result
