"""Kill rates from a mutation run's records: per framework and mutant kind, per function,
the survivors with their cases, and the cases counted apart with their reasons.

A mutant record that passed survived; one that failed or errored was killed; a skipped one
did not apply (its baseline did not pass, the case is counted apart, or the mutant changed
nothing), as its reason's prefix says.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from portbench_runner.mutation import BASELINE, MUTANT_KINDS, VALUE_KINDS
from portbench_runner.mutation.run import APART, BASELINE_FAILED

from ..results import CaseRecord, Outcome, RecordKind, read_results

__all__ = [
    "ALL",
    "EVERY",
    "EVERY_BUT_DTYPE",
    "KillCount",
    "MutationSummary",
    "Survivor",
    "percent",
    "status_of",
    "summarize",
]

KILLED, SURVIVED, IS_APART, BASE_FAILED, NA = "killed", "survived", "apart", "baseline", "n/a"
#: What ``value_cases`` counts: value-returning passing cases, and those that kill every
#: value mutant they were tried with (and every one but ``dtype``).
ALL, EVERY, EVERY_BUT_DTYPE = "all", "every value mutant", "every value mutant but dtype"


def status_of(record: CaseRecord) -> str:
    """What a mutant record says of its mutant: killed, survived, apart, baseline, n/a."""
    if record.outcome is Outcome.PASS:
        return SURVIVED
    if record.outcome in (Outcome.FAIL, Outcome.ERROR):
        return KILLED
    reason = record.reason or ""
    if reason.startswith(BASELINE_FAILED):
        return BASE_FAILED
    if reason.startswith(APART):
        return IS_APART
    return NA  # NOT_APPLICABLE, or the case skipped itself under the mutant


@dataclass
class KillCount:
    killed: int = 0
    survived: int = 0
    apart: int = 0
    na: int = 0

    def add(self, status: str) -> None:
        if status == KILLED:
            self.killed += 1
        elif status == SURVIVED:
            self.survived += 1
        elif status == IS_APART:
            self.apart += 1
        elif status == NA:
            self.na += 1

    @property
    def tried(self) -> int:
        return self.killed + self.survived

    @property
    def rate(self) -> float | None:
        return self.killed / self.tried if self.tried else None


@dataclass(frozen=True)
class Survivor:
    framework: str
    case: str
    kind: str
    note: str


@dataclass
class MutationSummary:
    by_kind: dict[tuple[str, str], KillCount] = field(default_factory=dict)
    by_function: dict[tuple[str, str, str], KillCount] = field(default_factory=dict)
    survivors: list[Survivor] = field(default_factory=list)
    apart: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(framework, reason) -> cases counted apart."""
    baselines: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(framework, outcome) -> cases run unmutated."""
    value_cases: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(framework, ALL | EVERY | EVERY_BUT_DTYPE) -> value-returning passing cases."""

    @property
    def frameworks(self) -> list[str]:
        return sorted({fw for fw, _ in self.baselines})


def _case_of(record: CaseRecord) -> str:
    return f"{record.function}::{record.case_name}"


def summarize(cell_dirs: list[Path]) -> MutationSummary:
    """The kill rates of every mutant record in ``cell_dirs`` (mutation runs' cells)."""
    out = MutationSummary()
    value_status: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for cell_dir in cell_dirs:
        for record in read_results(cell_dir / "results.jsonl", RecordKind.MUTANT).records:
            if record.mutant is None:
                continue
            fw, kind = record.framework, record.mutant.kind
            if kind == BASELINE:
                out.baselines[(fw, record.outcome.value)] += 1
                if record.outcome is Outcome.PASS and record.mutant.note:
                    out.apart[(fw, record.mutant.note)] += 1
                continue
            status = status_of(record)
            out.by_kind.setdefault((fw, kind), KillCount()).add(status)
            out.by_function.setdefault((fw, record.function, kind), KillCount()).add(status)
            if status == SURVIVED:
                out.survivors.append(Survivor(fw, _case_of(record), kind, record.mutant.note or ""))
            if kind in VALUE_KINDS and status in (KILLED, SURVIVED):
                value_status[(fw, _case_of(record))].append((kind, status))
    for (fw, _), statuses in value_status.items():
        out.value_cases[(fw, ALL)] += 1
        out.value_cases[(fw, EVERY)] += all(status == KILLED for _, status in statuses)
        out.value_cases[(fw, EVERY_BUT_DTYPE)] += all(
            status == KILLED for kind, status in statuses if kind != "dtype"
        )
    out.survivors.sort(key=lambda s: (s.framework, s.case, MUTANT_KINDS.index(s.kind)))
    return out


def percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"
