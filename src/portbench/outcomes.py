"""Per-function outcomes from case records: pass, partial, complete, untested.

- ``pass``      at least one case passed and none failed
- ``partial``   some cases failed and some passed
- ``complete``  cases ran and all of them failed
- ``untested``  no case ran (every one skipped or errored, or none recorded); kept in the
                denominator so coverage cannot be inflated
- ``cpu_too``   off the CPU only: every case that failed here failed on the framework's CPU
                too (``cpu_reference``), and no other case passed or failed. Such failures
                are not this device's portability failures, so the verdict above counts
                only the cases the CPU does not fail; the function stays in the denominator
                in its own "fails on the CPU too" bucket.

Case outcomes are :class:`portbench.results.Outcome` values; records are typed (a cell's
:class:`~portbench.results.CaseRecord` or a study cell's
:class:`~portbench.results.StudyRecord`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from portbench_runner.contract import Plan, StudyPlan

from .results import AnyRecord, Outcome

__all__ = [
    "CASE_OUTCOMES",
    "CPU_TOO",
    "FUNCTION_OUTCOMES",
    "OUTCOME_LABELS",
    "function_outcome",
    "function_outcomes",
]

CASE_OUTCOMES = tuple(o.value for o in Outcome)
FUNCTION_OUTCOMES = ("pass", "partial", "complete", "untested", "cpu_too")
#: What the report prints for each function outcome where a word is not enough.
OUTCOME_LABELS = {"cpu_too": "fails on the CPU too"}
#: A case outcome that is not an :class:`Outcome`: failed here and on the CPU twin.
CPU_TOO = "cpu_too"


def function_outcome(case_outcomes: Iterable[str | Outcome]) -> str:
    """The function's outcome from its cases' outcomes (an unknown outcome is refused);
    ``cpu_too`` marks a case that failed here and on the framework's CPU too."""
    listed = list(case_outcomes)
    shared = sum(1 for o in listed if o == CPU_TOO)
    counts = Counter(Outcome(o) for o in listed if o != CPU_TOO)
    passed, failed = counts[Outcome.PASS], counts[Outcome.FAIL]
    if failed and passed:
        return "partial"
    if failed:
        return "complete"
    if passed:
        return "pass"
    return "cpu_too" if shared else "untested"


def function_outcomes(
    plan: Plan | StudyPlan | None, records: Iterable[AnyRecord]
) -> dict[tuple[str, str | None], str]:
    """Outcome per (function, study_test_file) for every function the plan lists (and any
    other a record names)."""
    functions = () if plan is None else plan.functions
    by_key: dict[tuple[str, str | None], list[str]] = {
        (f.function, f.study_test_file): [] for f in functions
    }
    for record in records:
        outcome = CPU_TOO if record.fails_on_cpu else record.outcome.value
        by_key.setdefault((record.function, record.study_test_file), []).append(outcome)
    return {key: function_outcome(outcomes) for key, outcomes in by_key.items()}
