"""Typed cells as the store's rows, and the hashes that identify them.

A record's identity in the store is its cell (``cell_key``) and the sha256 of its content
(``record_sha256``): the canonical JSON of the typed record (the contract's encoder: keys
sorted, no spaces), so the same record read from two copies of a cell, however their files
were laid out, is one row. A cell's key hashes its plan with the start time and host of its
env.json: two runs of one plan (same seeds, same image) are two cells.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from portbench_runner.contract import (
    CaseRecord,
    Plan,
    PlanFunction,
    SessionLine,
    StudyPlan,
    StudyRecord,
    dumps,
    strict,
)

from .bundle import CellBundle
from .facts import CellFacts, cell_facts, release_of

__all__ = [
    "CELL_COLUMNS",
    "MESSAGE_CHARS",
    "PLANNED_COLUMNS",
    "RECORD_COLUMNS",
    "SESSION_COLUMNS",
    "Batch",
    "CellRows",
    "cell_key",
    "cell_rows",
    "sha256",
]

#: Characters of a failure message kept in its column (the whole record keeps it all).
MESSAGE_CHARS = 1000

_S, _I, _B, _D, _T = pa.string(), pa.int32(), pa.bool_(), pa.float64(), pa.timestamp("us")
CELL_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("cell_key", _S), ("cell_id", _S), ("framework", _S), ("accelerator", _S),
    ("profile", _S), ("backend", _S), ("suite", _S), ("release", _S),
    ("framework_version", _S), ("device_model", _S), ("driver", _S), ("runtime", _S),
    ("image_digest", _S), ("python", _S), ("numpy", _S), ("evidence_kind", _S),
    ("prediction_method", _S), ("prediction_target", _S), ("run_id", _S), ("cell_dir", _S),
    ("label", _S), ("machine", _S), ("started_at", _T), ("planned_cases", _I),
    ("plan_sha256", _S), ("plan_json", _S), ("env_json", _S), ("ingest_id", _S),
)  # fmt: skip
SESSION_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("cell_key", _S), ("session_sha256", _S), ("idx", _I), ("status", _S), ("reason", _S),
    ("started_at", _S), ("ended_at", _S), ("integrity", _S), ("integrity_detail", _S),
    ("line_json", _S), ("ingest_id", _S),
)  # fmt: skip
PLANNED_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("cell_key", _S), ("function", _S), ("study_test_file", _S), ("cases", _I),
)  # fmt: skip
RECORD_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("cell_key", _S), ("record_sha256", _S), ("record_kind", _S), ("case_id", _S),
    ("function", _S), ("study_test_file", _S), ("case_name", _S), ("case_code_sha256", _S),
    ("case_file_sha256", _S), ("dtype", _S), ("mode", _S), ("outcome", _S), ("stage", _S),
    ("category", _S), ("rule", _S), ("error_type", _S), ("message", _S),
    ("evidence_kind", _S), ("prediction_method", _S), ("prediction_target", _S),
    ("fallback", _B), ("fails_on_cpu", _B), ("for_dead_supervisor", _B), ("cold_ms", _D),
    ("warm_median_ms", _D), ("warm_samples_ms", pa.list_(_D)), ("started_at", _S),
    ("release", _S), ("python", _S), ("numpy", _S), ("record_json", _S), ("ingest_id", _S),
)  # fmt: skip


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cell_key(plan_json: str, bundle: CellBundle) -> str:
    """A cell run's key: its plan, and when and where its env says it started."""
    env = bundle.env
    started = (env.started_at or "") if env is not None else ""
    host = env.hostname if env is not None else ""
    return sha256(f"{plan_json}\0{started}\0{host}")


@dataclass
class Batch:
    """Rows of one table, column by column, ready to become an Arrow table."""

    columns: tuple[tuple[str, pa.DataType], ...]
    rows: list[tuple[Any, ...]] = field(default_factory=list)

    def table(self) -> pa.Table:
        names = [name for name, _ in self.columns]
        if not self.rows:
            arrays = [pa.array([], type=kind) for _, kind in self.columns]
        else:
            arrays = [
                pa.array(list(values), type=kind)
                for values, (_, kind) in zip(
                    zip(*self.rows, strict=True), self.columns, strict=True
                )
            ]
        return pa.Table.from_arrays(arrays, names=names)

    def __len__(self) -> int:
        return len(self.rows)


@dataclass(frozen=True)
class CellRows:
    """One cell as rows: the cell's own, its sessions' and its records' (keyed, hashed)."""

    key: str
    cell: tuple[Any, ...]
    planned: list[tuple[Any, ...]]
    sessions: list[tuple[Any, ...]]
    records: list[tuple[Any, ...]]
    cases: dict[str, str]
    """record_sha256 -> case id (to tell a new record of a known case from a repeat)."""


def _plan_case(plan: Plan | StudyPlan, case: str) -> tuple[str | None, str | None]:
    """(case code sha256, dtype) the plan gives a case, where it gives them."""
    if isinstance(plan, Plan) and case in plan:
        _, planned = plan.entry(case)
        return planned.code_sha256, planned.dtype
    return None, None


def _case_row(
    key: str, record: CaseRecord, plan: Plan | StudyPlan, ingest: str
) -> tuple[str, tuple[Any, ...]]:
    text = dumps(record.to_json())
    digest = sha256(text)
    code, dtype = _plan_case(plan, record.case)
    timing, warm = record.timing, record.timing.warm if record.timing else None
    prediction, provenance = record.prediction, record.provenance
    return digest, (
        key, digest, "case", record.case, record.function, record.study_test_file,
        record.case_name, code, record.case_file_sha256,
        dtype or (record.census.dtype if record.census else None),
        None,  # mode: no plan carries a case's sweep parameters yet (docs/store.md)
        record.outcome.value, _value(record.stage), _value(record.category), record.rule,
        record.error_type or None, record.message[:MESSAGE_CHARS] or None,
        record.evidence_kind.value,
        prediction.method.value if prediction else None,
        prediction.target if prediction else None,
        record.fallback_marked, record.fails_on_cpu, record.for_dead_supervisor,
        timing.cold_ms if timing else None, warm.median_ms if warm else None,
        list(warm.samples_ms) if warm and warm.samples_ms else None,
        record.started_at,
        release_of(provenance.release) if provenance else None,
        provenance.python if provenance else None,
        provenance.numpy if provenance else None,
        text, ingest,
    )  # fmt: skip


def _study_row(key: str, record: StudyRecord, ingest: str) -> tuple[str, tuple[Any, ...]]:
    text = dumps(record.to_json())
    digest = sha256(text)
    timing = record.timing
    return digest, (
        key, digest, "study", record.key, record.function, record.study_test_file,
        record.case_name, None, None, None, None,
        record.outcome.value, _value(record.stage), _value(record.category), record.rule,
        (record.error.type or None) if record.error else None,
        record.message[:MESSAGE_CHARS] or None,
        "observed", None, None, False, False, False,
        # The study's quantity: the mean of its timed calls (one per process, compilation
        # included), the nearest to a cold call; it has no warm statistics.
        timing.mean_ms if timing else None, None, None,
        None, None, None, None, text, ingest,
    )  # fmt: skip


def _value(member: Any) -> str | None:
    return None if member is None else str(member.value)


def _session_row(key: str, line: SessionLine, ingest: str) -> tuple[Any, ...]:
    text = dumps(line.to_json())
    integrity = line.integrity
    return (
        key, sha256(text), line.index, line.status.value, line.reason, line.started_at,
        line.ended_at, integrity.verdict.value if integrity else "unchecked",
        integrity.detail if integrity else None, text, ingest,
    )  # fmt: skip


def _cell_row(
    key: str, bundle: CellBundle, facts: CellFacts, plan_json: str, ingest: str
) -> tuple[Any, ...]:
    plan = bundle.plan
    planned = plan.case_count if isinstance(plan, Plan) else sum(1 for _ in plan.functions)
    env_json = dumps(strict(bundle.env.to_json())) if bundle.env is not None else None
    framework, accelerator, profile = ([*plan.cell.split("/"), "?", "?"])[:3]
    return (
        key, plan.cell, framework, accelerator, profile, facts.backend, facts.suite,
        facts.release, facts.framework_version, facts.device_model, facts.driver,
        facts.runtime, facts.image_digest, facts.python, facts.numpy,
        facts.evidence_kind.value, facts.prediction_method, facts.prediction_target,
        bundle.run_id, bundle.cell_dir, facts.label, facts.machine, facts.started_at,
        planned, sha256(plan_json), plan_json, env_json, ingest,
    )  # fmt: skip


def cell_rows(bundle: CellBundle, ingest: str) -> CellRows:
    """The rows of one cell, every record hashed."""
    plan_json = dumps(bundle.plan.to_json())
    key = cell_key(plan_json, bundle)
    facts = cell_facts(bundle.plan, bundle.env)
    records: list[tuple[Any, ...]] = []
    cases: dict[str, str] = {}
    for record in bundle.records:
        digest, row = (
            _study_row(key, record, ingest)
            if isinstance(record, StudyRecord)
            else _case_row(key, record, bundle.plan, ingest)
        )
        records.append(row)
        cases[digest] = record.key if isinstance(record, StudyRecord) else record.case
    planned = [
        (key, f.function, f.study_test_file, len(f.cases) if isinstance(f, PlanFunction) else 0)
        for f in bundle.plan.functions
    ]
    return CellRows(
        key,
        _cell_row(key, bundle, facts, plan_json, ingest),
        planned,
        [_session_row(key, line, ingest) for line in bundle.sessions],
        records,
        cases,
    )
