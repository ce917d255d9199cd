"""Which of the study's timed sub-tests its latency tables use (one rule, for Tables 5-7 and
for every latency pair of study cells)."""

from __future__ import annotations

from typing import Any

__all__ = ["UNRECORDED_OUTCOMES", "usable_timing"]

#: The study outcomes of a sub-test whose device report says nothing about it.
UNRECORDED_OUTCOMES = ("unrecorded", "absent from report")


def usable_timing(record: dict[str, Any]) -> float | None:
    """The study mean (ms) of a sub-test its tables use, else None: timed calls in every run
    file of the device, and the device's report says it passed, does not list it, or failed
    it by the study's own harness (such sub-tests were timed before the harness failed)."""
    study = (record.get("timing") or {}).get("study")
    if not study or not study.get("mean_ms") or not study.get("timed_in_every_run", True):
        return None
    harness_failure = record.get("outcome") == "fail" and record.get("category") == "harness"
    unrecorded = record.get("study_outcome") in UNRECORDED_OUTCOMES
    if record.get("outcome") == "pass" or unrecorded or harness_failure:
        return float(study["mean_ms"])
    return None
