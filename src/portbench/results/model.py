"""The typed records of a cell, as the contract defines them (``portbench_runner.contract``):
re-exported here so host code names them from the results layer. Their schema history is
in the contract (records.py, session.py)."""

from __future__ import annotations

from portbench_runner.contract import (
    MAX_SAMPLES,
    RECORD_SCHEMA,
    RECORD_SCHEMAS,
    CaseRecord,
    Category,
    ErrorInfo,
    Evidence,
    EvidenceKind,
    Outcome,
    RecordInvalid,
    RecordKind,
    SessionLine,
    Stage,
    StudyRecord,
    Timing,
    WarmTiming,
)

__all__ = [
    "MAX_SAMPLES",
    "RECORD_SCHEMA",
    "RECORD_SCHEMAS",
    "AnyRecord",
    "CaseRecord",
    "Category",
    "ErrorInfo",
    "Evidence",
    "EvidenceKind",
    "Outcome",
    "RecordInvalid",
    "RecordKind",
    "SessionLine",
    "Stage",
    "StudyRecord",
    "Timing",
    "WarmTiming",
    "fallback_seen",
]

#: What a cell's results.jsonl holds for the report: portbench's records or the study's.
AnyRecord = CaseRecord | StudyRecord


def fallback_seen(evidence: Evidence | None) -> bool:
    """True when evidence says the work ran partly on the host; unseen evidence (``fallback``
    null) is not a fallback, and not a clean bill either."""
    return evidence is not None and evidence.fallback is True
