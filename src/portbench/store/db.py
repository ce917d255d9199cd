"""Opening the store: one DuckDB file, its lock, its schema brought up to date.

DuckDB runs in this process (no server) and lets one process write a file at a time; a
second writer would fail with a lock error rather than wait. Ingests are serialized by
our own lock beside the file (``<store>.lock``, ``flock``): a writer takes it exclusively
and waits for the one before it, readers share it, so an ingest never interleaves with
another or with a scoreboard being built. The kernel drops the lock when its holder dies.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from ..errors import ResultsError
from ..paths import results_dir
from .schema import SCHEMA_VERSION, create, migrations, views

__all__ = ["StoreError", "default_store", "open_store", "schema_of"]

LOCK_SUFFIX = ".lock"


class StoreError(ResultsError):
    """The store cannot be opened, is of a newer schema, or refused what it was given."""


def default_store() -> Path:
    """Where the store lives unless ``--store`` says otherwise (git-ignored)."""
    return results_dir() / "store.duckdb"


@contextmanager
def _locked(path: Path, exclusive: bool, waiting: Callable[[str], None] | None) -> Iterator[None]:
    lock_path = path.with_name(path.name + LOCK_SUFFIX)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(
            f"cannot open the store's lock {lock_path} ({exc.strerror}); pass --store with a "
            "file in a folder you can write"
        ) from None
    try:
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "another process"
            if waiting is not None:
                waiting(f"waiting for {holder} to finish with {path}")
            fcntl.flock(fd, mode)
        if exclusive:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


def schema_of(con: duckdb.DuckDBPyConnection) -> int:
    """The schema version a store holds (0: an empty file)."""
    tables = {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    if "meta" not in tables:
        return 0
    row = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return int(row[0]) if row is not None else 0


def _bring_up_to_date(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    version = schema_of(con)
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} is a store of schema {version}, newer than this portbench's "
            f"{SCHEMA_VERSION}; upgrade portbench to use it"
        )
    con.execute("BEGIN TRANSACTION")
    try:
        if version == 0:
            create(con)
            version = 1
        for step in migrations():
            if step.version > version:
                step.apply(con)
                version = step.version
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema'", [str(version)])
        views(con)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _connect(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        raise StoreError(
            f"{path} does not open as a store ({str(exc).splitlines()[0][:160]}); pass --store "
            "with a store portbench ingest made"
        ) from None


def _migrate(path: Path, waiting: Callable[[str], None] | None) -> None:
    with _locked(path, exclusive=True, waiting=waiting):
        con = _connect(path, read_only=False)
        try:
            _bring_up_to_date(con, path)
        finally:
            con.close()


def _read_version(path: Path, waiting: Callable[[str], None] | None) -> int:
    with _locked(path, exclusive=False, waiting=waiting):
        con = _connect(path, read_only=True)
        try:
            return schema_of(con)
        finally:
            con.close()


@contextmanager
def open_store(
    path: Path, write: bool = False, waiting: Callable[[str], None] | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """The store at ``path``: for writing (created if missing, migrated, locked exclusively)
    or for reading (must exist; shares the lock with other readers). A store of an older
    schema is migrated first, a newer one refused. ``waiting`` is told, once, when another
    process holds the lock."""
    if not write:
        if not path.is_file():
            raise StoreError(f"there is no store at {path}; make one with portbench ingest RUN_DIR")
        version = _read_version(path, waiting)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} is a store of schema {version}, newer than this portbench's "
                f"{SCHEMA_VERSION}; upgrade portbench to read it"
            )
        if version < SCHEMA_VERSION:
            _migrate(path, waiting)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path, exclusive=write, waiting=waiting):
        con = _connect(path, read_only=not write)
        try:
            if write:
                _bring_up_to_date(con, path)
            yield con
        finally:
            con.close()
