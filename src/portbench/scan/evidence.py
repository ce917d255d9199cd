"""Evidence behind a verdict, and the one interface every source of it implements.

Two grains: a *case* of a function (the manifests' cases, the study's sub-tests) says how
one call of one API fared on one accelerator and release; an *operator* of a census says how
one operator fared in one dtype. Each piece carries its kind: ``observed`` (it ran on the
device), ``predicted`` (what the device would do, learned without it) or ``declared`` (a
kernel registry or a database says so): the contract's :class:`EvidenceKind`, read from
each typed record. Kinds are never merged: a verdict is reached from
one kind at a time, and the others are reported beside it.

A source is anything with the methods of :class:`EvidenceSource`: the run directories
(cells, census cells, imported study cells) and the store of issue 29, which narrows each
query to the functions a project reaches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from portbench_runner.adapters.base import DTYPE_NAMES
from portbench_runner.contract import EvidenceKind

__all__ = [
    "CaseEvidence",
    "EvidenceKind",
    "EvidenceSource",
    "OperatorEvidence",
    "case_dtype",
    "public_release",
]


#: The dtypes a case name may name: the runner's portable names, and the wider unsigned
#: integers that some cases (tf.cast's, say) make with the framework itself.
DTYPES = (*DTYPE_NAMES, "uint16", "uint32", "uint64")
_DTYPE = re.compile(
    r"(?<![a-z0-9])(" + "|".join(sorted(DTYPES, key=len, reverse=True)) + r")(?![a-z0-9])"
)


def case_dtype(name: str) -> str | None:
    """The last dtype a case name names, or None."""
    found = _DTYPE.findall(name.rsplit("::", 1)[-1].lower())
    return found[-1] if found else None


_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+)*(?:(?:a|b|rc|\.dev|\.post)\d+)?)")


def public_release(text: str) -> str:
    """A framework version as a release: ``2.13.0+cpu`` -> ``2.13.0``,
    ``1.12 (study lock: 1.12.1)`` -> ``1.12``; text that is no version stays as it is."""
    match = _VERSION.match(text or "")
    return match.group(1) if match else (text or "?")


@dataclass(frozen=True)
class CaseEvidence:
    """One case of one function on one accelerator and release."""

    framework: str
    function: str
    """The API in the scanner's spelling (``tensorflow.``, not ``tf.``)."""
    case: str
    accelerator: str
    release: str
    kind: EvidenceKind
    outcome: str
    """pass, fail, skip or error (a case of ours that broke: no evidence either way)."""
    category: str | None
    fallback: bool
    """Passed with part of its work on the host (the fallback probe saw it)."""
    message: str
    source: str
    """Where it was read (a cell's folder, a store's key), for the reader to check."""
    fails_on_cpu: bool = False

    @property
    def dtype(self) -> str | None:
        """The dtype the case's name names (``float32-eager``, ``test_x_bfloat16``), if any:
        case names say it by convention, records have no field for it."""
        return case_dtype(self.case)


@dataclass(frozen=True)
class OperatorEvidence:
    """One operator in one dtype on one accelerator and release (a census case)."""

    framework: str
    operator: str
    dtype: str
    accelerator: str
    release: str
    kind: EvidenceKind
    support: str
    """yes, partly, no, no-sample (the database made no input), error (our harness)."""
    message: str
    source: str


class EvidenceSource(Protocol):
    """What the scanner asks of evidence. ``functions`` and ``operators`` narrow a query to
    what the scanned project uses (a store answers them with an index); a source may
    return more, never less."""

    def describe(self) -> str:
        """One phrase: what this source read (for the report's header)."""
        ...

    def prepare(self) -> None:
        """Read whatever does not depend on the project's uses (the scan calls it while
        worker processes read the project's files); a source narrowed by the uses has
        nothing to read before them."""
        ...

    def functions(self, framework: str) -> set[str]:
        """Every function of ``framework`` with function-level evidence (scanner spelling)."""
        ...

    def held(self, framework: str) -> set[tuple[str, str]]:
        """(accelerator, release) of every cell of ``framework`` the source holds."""
        ...

    def cases(self, framework: str, functions: Iterable[str] | None = None) -> list[CaseEvidence]:
        """Function-level evidence of ``framework`` (of ``functions``, in the scanner's
        spelling, where given)."""
        ...

    def operators(
        self, framework: str, operators: Iterable[str] | None = None
    ) -> list[OperatorEvidence]:
        """Operator-level evidence of ``framework`` (census cells)."""
        ...
