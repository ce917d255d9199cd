"""What one census case saw over its samples (shared by every database adapter)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple, TypedDict

__all__ = ["FIRST_FAILURES_KEPT", "DatabaseInfo", "EntryRun", "ListedOperator"]

#: Failing sample indices kept per case (the first failure's error is kept in full).
FIRST_FAILURES_KEPT = 20


class DatabaseInfo(TypedDict):
    """A database's ``describe()``: the listing's ``database``."""

    name: str
    version: str
    entries: int


class _ListedRequired(TypedDict):
    entry: int
    op: str
    variant: str
    declared: Dict[str, List[str]]
    """Dtypes the database declares per device type."""
    reference: bool


class ListedOperator(_ListedRequired, total=False):
    """One row of a database's ``list_operators()`` (the listing's ``operators``)."""

    dtypes: List[str]
    """The dtypes the entry runs in, where the database fixes them (JAX's harnesses)."""


class EntryRun:
    """The outcome of one entry x dtype over its samples, filled while they run."""

    def __init__(self, check: str) -> None:
        self.check = check
        self.samples = 0
        self.ran = 0
        self.agreed = 0
        self.unchecked = 0
        self.failed: List[int] = []
        self.first_failure: Optional[Tuple[str, BaseException, int]] = None
        self.check_failures = 0

    def fail(self, stage: str, exc: BaseException, index: int) -> None:
        if len(self.failed) < FIRST_FAILURES_KEPT:
            self.failed.append(index)
        if self.first_failure is None:
            self.first_failure = (stage, exc, index)

    def fields(self) -> Dict[str, object]:
        return {
            "samples": self.samples,
            "ran": self.ran,
            "agreed": self.agreed,
            "unchecked": self.unchecked,
            "check_failures": self.check_failures,
            "failed_samples": self.failed,
            "check": self.check,
        }
