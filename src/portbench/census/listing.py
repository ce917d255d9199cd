"""A census listing: the operator database of one framework version, as the cell wrote it.

The file comes from inside a cell, so it is untrusted input: read within a size bound,
strict JSON, and every entry checked before a plan is compiled from it. One bad entry
refuses the whole listing (a plan compiled around a silently dropped entry would count a
smaller denominator).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..documents import check_document
from ..errors import ResultsError
from ..results.safeio import loads_strict, read_bounded

__all__ = [
    "LISTING_SCHEMA",
    "CensusListing",
    "DatabaseInfo",
    "ListedOperator",
    "parse_listing",
    "read_listing",
]

#: Schema history (keep in step with runners/portbench_runner/census/__init__.py):
#:   1 - first version.
LISTING_SCHEMA = 1
#: A listing of every OpInfo entry is about 300 kB; anything past this is not one.
MAX_LISTING_BYTES = 32 << 20
#: A dtype name (``float32``, ``float8_e4m3fn``, ``int4``); the listing's own ``dtypes``
#: say which ones it uses, and every entry may use only those.
DTYPE_PATTERN = re.compile(r"^[a-z][a-z0-9_]{1,39}$")
#: Operator and variant names: what op_db, the harnesses and tf.raw_ops use.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.]{0,199}$")
# JAX's harness names keep '-' (negative numbers in shapes and axes).
VARIANT_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]{0,200}$")
DEVICE_TYPE_PATTERN = re.compile(r"^[a-z0-9_]{1,20}$")


@dataclass(frozen=True)
class DatabaseInfo:
    """Which database the entries come from, in which version."""

    name: str
    version: str
    entries: int


@dataclass(frozen=True)
class ListedOperator:
    """One entry of the database."""

    entry: int
    """Its index in the database (how the worker finds it again)."""
    op: str
    variant: str
    declared: dict[str, tuple[str, ...]]
    """The dtypes the database declares per device type (``cpu``, ``cuda``)."""
    reference: bool
    """Whether the entry has a reference implementation to check against."""
    dtypes: tuple[str, ...] | None = None
    """The dtypes this entry runs in (JAX: a harness has one); None: every listed dtype."""

    @property
    def name(self) -> str:
        """``op`` or ``op.variant``: the function part of the census case id."""
        return f"{self.op}.{self.variant}" if self.variant else self.op


@dataclass(frozen=True)
class CensusListing:
    framework: str
    python: str
    database: DatabaseInfo
    dtypes: tuple[str, ...]
    operators: tuple[ListedOperator, ...]


def _field(obj: dict[str, object], key: str, kind: type, where: str) -> Any:
    value = obj.get(key)
    # bool is an int to Python, never to a listing.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ResultsError(f"{where}: '{key}' is missing or not a JSON {kind.__name__}")
    return value


def _dtype_list(value: Any, where: str, allowed: tuple[str, ...] | None) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        raise ResultsError(f"{where}: a list of dtype names is expected")
    bad = sorted(
        d for d in value if not DTYPE_PATTERN.match(d) or (allowed is not None and d not in allowed)
    )
    if bad:
        shown = f" (the listing's dtypes: {', '.join(allowed)})" if allowed is not None else ""
        raise ResultsError(f"{where}: unknown dtype {bad[0][:40]!r}{shown}")
    return tuple(value)


def _operator(row: Any, where: str, dtypes: tuple[str, ...]) -> ListedOperator:
    if not isinstance(row, dict):
        raise ResultsError(f"{where}: an operator entry is a JSON object")
    entry = _field(row, "entry", int, where)
    op = _field(row, "op", str, where)
    where = f"{where} ({op[:60]!r})"
    variant = _field(row, "variant", str, where)
    if entry < 0 or not NAME_PATTERN.match(op) or not VARIANT_PATTERN.match(variant):
        raise ResultsError(
            f"{where}: entry must be 0 or more and names letters, digits, '_' and '.'"
        )
    declared_raw = _field(row, "declared", dict, where)
    declared = {}
    for device_type, values in declared_raw.items():
        if not DEVICE_TYPE_PATTERN.match(device_type):
            raise ResultsError(f"{where}: device type {device_type[:40]!r} is not a name")
        declared[device_type] = _dtype_list(values, f"{where}: declared.{device_type}", dtypes)
    reference = _field(row, "reference", bool, where)
    own = row.get("dtypes")
    runs_in = None if own is None else _dtype_list(own, f"{where}: dtypes", dtypes)
    return ListedOperator(entry, op, variant, declared, reference, runs_in)


def parse_listing(data: bytes, where: str, framework: str) -> CensusListing:
    """Check a listing's bytes; any problem is one sentence naming the file and entry."""
    try:
        doc = loads_strict(data)
    except ValueError as exc:
        raise ResultsError(
            f"{where}: the census listing does not read ({exc}); list it again"
        ) from None
    doc = check_document(
        doc,
        where,
        "census-listing",
        LISTING_SCHEMA,
        "census listing",
        hint="list it again",
        schema_hint="use the runner of this portbench",
        error=ResultsError,
    )
    if doc.get("framework") != framework:
        raise ResultsError(
            f"{where}: a listing of {str(doc.get('framework'))[:40]!r}, not {framework!r}"
        )
    raw_db = _field(doc, "database", dict, where)
    database = DatabaseInfo(
        _field(raw_db, "name", str, f"{where}: database"),
        _field(raw_db, "version", str, f"{where}: database"),
        _field(raw_db, "entries", int, f"{where}: database"),
    )
    dtypes = _dtype_list(doc.get("dtypes"), f"{where}: dtypes", None)
    rows = _field(doc, "operators", list, where)
    if not rows:
        raise ResultsError(f"{where}: the listing holds no operator; the database is empty")
    operators = tuple(
        _operator(row, f"{where}: operator {n}", dtypes) for n, row in enumerate(rows)
    )
    seen: dict[str, int] = {}
    entries: set[int] = set()
    for item in operators:
        if item.name in seen:
            raise ResultsError(
                f"{where}: {item.name!r} is listed twice (entries {seen[item.name]} and "
                f"{item.entry}); case ids would not be unique"
            )
        if item.entry in entries or item.entry >= database.entries:
            raise ResultsError(
                f"{where}: entry {item.entry} of {item.name!r} is repeated or past the "
                f"database's {database.entries} entries"
            )
        seen[item.name] = item.entry
        entries.add(item.entry)
    python = doc.get("python")
    return CensusListing(
        framework, str(python) if isinstance(python, str) else "", database, dtypes, operators
    )


def read_listing(path: Path, framework: str) -> CensusListing:
    """A listing file, read as untrusted input (no link followed, size bounded)."""
    try:
        data = read_bounded(path, MAX_LISTING_BYTES)
    except OSError:
        raise ResultsError(f"{path}: the cell left no readable census listing") from None
    return parse_listing(data, str(path), framework)
