"""Evidence from the store (issue 29): ``portbench scan --store FILE``.

The store answers the query the scan asks with its own index: the cells of one framework,
holding only the records of the functions the project reaches
(:func:`portbench.store.cells.load_store_cells`). Which functions those are is decided here
from the names the store holds (one ``DISTINCT`` over the ``case_results`` view, for every framework at once) and by the
scan's map, as the run directories' evidence is indexed: so a scan of a store gives the
verdicts a scan of the same cells' run directories gives. Census cells come back whole
(every ``census:`` function): their pairs are reached through operators, not names.

The cells come back typed, through the contract, and are read into evidence by the same
code as the run directories' (:class:`~portbench.scan.sources.CellEvidence`): each record's
own evidence kind, tampered cells left out by the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..store.cells import load_store_cells
from ..store.db import open_store
from .evidence import CaseEvidence, OperatorEvidence
from .sources import CENSUS_PREFIX, CellEvidence, scanner_name

__all__ = ["StoreEvidence"]

#: Function names of every framework's cells, census apart, tampered cells left out (the
#: view); one query for all frameworks: opening the store costs more than the answer.
_FUNCTIONS = """
SELECT DISTINCT framework, function, suite = 'census' AS census
FROM case_results
"""


@dataclass
class StoreEvidence:
    """The evidence a store holds, read one framework at a time, narrowed to the functions
    asked for."""

    path: Path
    _read: CellEvidence = field(default_factory=CellEvidence)
    _names: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    """Per framework: scanner name -> the spellings the store's records use."""
    _census: dict[str, set[str]] = field(default_factory=dict)
    _named: bool = False
    _loaded: set[str] = field(default_factory=set)

    @property
    def problems(self) -> list[str]:
        return self._read.problems

    @property
    def cells(self) -> int:
        return self._read.cells

    def prepare(self) -> None:
        """Nothing before the uses: the store is queried for the functions they reach."""

    def describe(self) -> str:
        frameworks = ", ".join(sorted(self._loaded)) or "no framework asked"
        return f"store {self.path}: {self.cells} cell(s) of {frameworks}"

    def _stored(self, framework: str) -> dict[str, set[str]]:
        if not self._named:
            with open_store(self.path, write=False) as con:
                rows = con.execute(_FUNCTIONS).fetchall()
            for held, function, is_census in rows:
                stored = str(function)
                if is_census or stored.startswith(CENSUS_PREFIX):
                    self._census.setdefault(str(held), set()).add(stored)
                else:
                    names = self._names.setdefault(str(held), {})
                    names.setdefault(scanner_name(stored), set()).add(stored)
            self._named = True
        return self._names.get(framework, {})

    def functions(self, framework: str) -> set[str]:
        return set(self._stored(framework))

    def held(self, framework: str) -> set[tuple[str, str]]:
        self._load(framework, None)
        return self._read.held(framework)

    def cases(self, framework: str, functions: Iterable[str] | None = None) -> list[CaseEvidence]:
        self._load(framework, functions)
        return self._read.cases(framework)

    def operators(
        self, framework: str, operators: Iterable[str] | None = None
    ) -> list[OperatorEvidence]:
        self._load(framework, None)
        return self._read.operators(framework)

    def _load(self, framework: str, functions: Iterable[str] | None) -> None:
        """The framework's cells, once: the first question decides how far it is narrowed
        (``functions`` None: every record)."""
        if framework in self._loaded:
            return
        wanted: set[str] | None = None
        if functions is not None:
            names = self._stored(framework)
            wanted = {stored for name in functions for stored in names.get(name, ())}
            wanted |= self._census.get(framework, set())
        for cell in load_store_cells(self.path, framework, wanted):
            self._read.add(cell)
        self._loaded.add(framework)
