"""Predicted evidence (#30): what a target would do, learned without it, in tables of its own.

A predicted cell (``portbench bench --predict``) never enters the portability tables of
observed cells: its counts have their own denominators, its id names the target with
``-predicted``, and every row says how it was predicted. A predicted pass means the call
lowers (or runs on XLA's CPU client, or finds its kernels declared) with no host work,
never that the case passes its check on the device; "not predictable" cases (the CPU
control fails, or the look cannot be made here) count as untested.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from portbench_runner.contract import (
    CaseRecord,
    EvidenceKind,
    Outcome,
    Plan,
    PredictionSettings,
    PredictionVerdict,
)

from ..outcomes import function_outcomes
from ..results import AnyRecord
from .load import Cell
from .tables import Table

__all__ = [
    "evidence_kind",
    "is_predicted",
    "predicted_cases",
    "predicted_outcomes",
    "predicted_summary",
    "predicted_tables",
    "prediction_of",
    "verdict",
    "versions",
]


def evidence_kind(record: AnyRecord) -> EvidenceKind:
    """``observed`` (a study record, and a record without the field, ran on its device),
    ``predicted`` or ``declared``."""
    return record.evidence_kind if isinstance(record, CaseRecord) else EvidenceKind.OBSERVED


def _settings(cell: Cell) -> PredictionSettings | None:
    return cell.plan.prediction if isinstance(cell.plan, Plan) else None


def is_predicted(cell: Cell) -> bool:
    """A cell whose plan predicts a target, or any of whose records is predicted."""
    if _settings(cell) is not None:
        return True
    return any(evidence_kind(r) is not EvidenceKind.OBSERVED for r in cell.records)


def prediction_of(cell: Cell) -> dict[str, str]:
    """The cell's target, platform and method as its plan names them."""
    given = _settings(cell)
    if given is None:
        return {"target": "?", "platform": "?", "method": "?"}
    return {"target": given.target, "platform": given.looks_at, "method": given.method.value}


def versions(cell: Cell) -> str:
    """The framework release(s) that made the prediction, from env.json."""
    device = cell.env.section("device") if cell.env is not None else {}
    found = [str(device.get("framework_version") or "?")]
    for key in ("torch_xla_version", "jaxlib_version"):
        if device.get(key):
            found.append(f"{key.split('_')[0].replace('torch', 'torch_xla')} {device[key]}")
    return ", ".join(found)


def verdict(record: AnyRecord) -> PredictionVerdict | None:
    """A predicted record's verdict; None for a record without one (skipped or errored on
    the CPU, or a crash or timeout the supervisor recorded)."""
    if not isinstance(record, CaseRecord) or record.prediction is None:
        return None
    return record.prediction.verdict


def predicted_outcomes(cell: Cell) -> dict[tuple[str, str | None], str]:
    """Per-function predicted outcomes. A failure the host or supervisor recorded (a crash,
    a timeout on this machine) carries no verdict: it says nothing of the target and counts
    as not predictable (untested), never as a predicted failure."""
    records = [
        replace(r, outcome=Outcome.SKIP, stage=None, category=None)
        if isinstance(r, CaseRecord) and r.outcome is Outcome.FAIL and verdict(r) is None
        else r
        for r in cell.records
    ]
    return function_outcomes(cell.plan, records)


def predicted_summary(cells: list[Cell]) -> Table:
    """Per predicted cell: cases predicted to pass or fail, not predictable, and the
    functions' predicted outcomes, with failures by category."""
    table = Table(
        "predicted",
        "Predicted targets (evidence kinds predicted and declared; never counted as observed)",
        [
            "cell",
            "method",
            "release",
            "status",
            "cases",
            "predicted pass",
            "predicted fail",
            "not predictable",
            "skip/error/crash",
            "functions pass/partial/complete/untested",
            "predicted failures by category",
        ],
        note="A predicted pass: the call lowers for the platform, runs on XLA's CPU client or "
        "finds its kernels declared, with no host work; never a pass of the case's check on "
        "the device. Not predictable: the CPU control fails, or the look cannot be made on "
        "this machine (docs/predictions.md); such cases count as untested.",
    )
    for cell in cells:
        verdicts = Counter(verdict(r) for r in cell.records)
        categories = Counter(
            str(r.category) for r in cell.records if verdict(r) is PredictionVerdict.FAIL
        )
        functions = Counter(predicted_outcomes(cell).values())
        method = prediction_of(cell)
        table.rows.append(
            [
                cell.name,
                f"{method['method']} ({method['platform']})",
                versions(cell),
                cell.status,
                len(cell.records),
                verdicts[PredictionVerdict.PASS],
                verdicts[PredictionVerdict.FAIL],
                verdicts[PredictionVerdict.NOT_PREDICTABLE],
                verdicts[None],
                "/".join(str(functions[k]) for k in ("pass", "partial", "complete", "untested")),
                ", ".join(f"{k} {n}" for k, n in categories.most_common()) or "-",
            ]
        )
    return table


def predicted_cases(cells: list[Cell], limit_per_cell: int = 200) -> Table:
    """Every case predicted to fail, and every one not predictable, with why."""
    table = Table(
        "predicted_cases",
        "Predicted failures and cases not predictable",
        ["cell", "case", "verdict", "category", "why"],
    )
    for cell in cells:
        shown = 0
        for record in cell.records:
            said = verdict(record)
            if said is None or said is PredictionVerdict.PASS or shown >= limit_per_cell:
                continue
            assert isinstance(record, CaseRecord) and record.prediction is not None
            shown += 1
            why = record.prediction.note or record.reason or ""
            if said is PredictionVerdict.NOT_PREDICTABLE:
                why = record.reason or why
            table.rows.append(
                [cell.name, record.case, said.value, record.category or "-", why[:200]]
            )
    return table


def predicted_tables(predicted: list[Cell], cells: list[Cell]) -> list[Table]:
    """The predicted cells' tables, and their check against the study's cells in ``cells``;
    none when no cell is predicted."""
    if not predicted:
        return []
    from .prediction_check import prediction_checks

    return [
        predicted_summary(predicted),
        predicted_cases(predicted),
        *prediction_checks(predicted, cells),
    ]
