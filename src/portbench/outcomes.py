"""Per-function outcomes from case records: pass, partial, complete, untested.

- ``pass``      at least one case passed and none failed
- ``partial``   some cases failed and some passed
- ``complete``  cases ran and all of them failed
- ``untested``  no case ran (every one skipped or errored, or none recorded); kept in the
                denominator so coverage cannot be inflated
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["CASE_OUTCOMES", "FUNCTION_OUTCOMES", "function_outcome", "function_outcomes"]

CASE_OUTCOMES = ("pass", "fail", "skip", "error")
FUNCTION_OUTCOMES = ("pass", "partial", "complete", "untested")


def function_outcome(case_outcomes: Iterable[str]) -> str:
    counts = Counter(case_outcomes)
    passed, failed = counts["pass"], counts["fail"]
    if failed and passed:
        return "partial"
    if failed:
        return "complete"
    if passed:
        return "pass"
    return "untested"


def function_outcomes(
    plan: Mapping[str, Any], records: Iterable[Mapping[str, Any]]
) -> dict[tuple[str, str | None], str]:
    """Outcome per (function, study_test_file) for every function the plan lists."""
    by_key: dict[tuple[str, str | None], list[str]] = {
        (f["function"], f.get("study_test_file")): [] for f in plan["functions"]
    }
    for record in records:
        key = (record["function"], record.get("study_test_file"))
        by_key.setdefault(key, []).append(record["outcome"])
    return {key: function_outcome(outcomes) for key, outcomes in by_key.items()}
