"""Which of the study's timed sub-tests its latency tables use (one rule, for Tables 5-7 and
for every latency pair of study cells)."""

from __future__ import annotations

from ..results import AnyRecord, Category, Outcome, StudyRecord

__all__ = ["UNRECORDED_OUTCOMES", "usable_timing"]

#: The study outcomes of a sub-test whose device report says nothing about it.
UNRECORDED_OUTCOMES = ("unrecorded", "absent from report")


def usable_timing(record: AnyRecord) -> float | None:
    """The study mean (ms) of a sub-test its tables use, else None: timed calls in every run
    file of the device, and the device's report says it passed, does not list it, or failed
    it by the study's own harness (such sub-tests were timed before the harness failed)."""
    if not isinstance(record, StudyRecord) or record.timing is None:
        return None
    study = record.timing
    if not study.mean_ms or not study.timed_in_every_run:
        return None
    harness_failure = record.outcome is Outcome.FAIL and record.category is Category.HARNESS
    unrecorded = record.study_outcome in UNRECORDED_OUTCOMES
    if record.outcome is Outcome.PASS or unrecorded or harness_failure:
        return study.mean_ms
    return None
