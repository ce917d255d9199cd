"""Per-function outcomes from case records: pass, partial, complete, untested.

- ``pass``      at least one case passed and none failed
- ``partial``   some cases failed and some passed
- ``complete``  cases ran and all of them failed
- ``untested``  no case ran (every one skipped or errored, or none recorded); kept in the
                denominator so coverage cannot be inflated

Case outcomes are :class:`portbench.results.Outcome` values; records may be typed
(:class:`portbench.results.CaseRecord`) or the JSON objects the report reads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from .results import CaseRecord, Outcome

__all__ = ["CASE_OUTCOMES", "FUNCTION_OUTCOMES", "function_outcome", "function_outcomes"]

CASE_OUTCOMES = tuple(o.value for o in Outcome)
FUNCTION_OUTCOMES = ("pass", "partial", "complete", "untested")


def function_outcome(case_outcomes: Iterable[str | Outcome]) -> str:
    """The function's outcome from its cases' outcomes (an unknown outcome is refused)."""
    counts = Counter(Outcome(o) for o in case_outcomes)
    passed, failed = counts[Outcome.PASS], counts[Outcome.FAIL]
    if failed and passed:
        return "partial"
    if failed:
        return "complete"
    if passed:
        return "pass"
    return "untested"


def _key_and_outcome(record: CaseRecord | Mapping[str, Any]) -> tuple[tuple[str, str | None], str]:
    if isinstance(record, CaseRecord):
        return (record.function, record.study_test_file), record.outcome.value
    return (record["function"], record.get("study_test_file")), record["outcome"]


def function_outcomes(
    plan: Mapping[str, Any], records: Iterable[CaseRecord | Mapping[str, Any]]
) -> dict[tuple[str, str | None], str]:
    """Outcome per (function, study_test_file) for every function the plan lists."""
    by_key: dict[tuple[str, str | None], list[str]] = {
        (f["function"], f.get("study_test_file")): [] for f in plan["functions"]
    }
    for record in records:
        key, outcome = _key_and_outcome(record)
        by_key.setdefault(key, []).append(outcome)
    return {key: function_outcome(outcomes) for key, outcomes in by_key.items()}
