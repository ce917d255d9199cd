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
from typing import Any

from ..outcomes import function_outcomes
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
]

#: Verdicts of a predicted record (runners' prediction.VERDICTS); None: skipped or errored.
VERDICTS = ("pass", "fail", "not_predictable")


def evidence_kind(record: dict[str, Any]) -> str:
    """``observed`` (the default: a record without the field ran on its device),
    ``predicted`` or ``declared``."""
    kind = record.get("evidence_kind")
    return kind if isinstance(kind, str) else "observed"


def is_predicted(cell: Cell) -> bool:
    """A cell whose plan predicts a target, or any of whose records is predicted."""
    if isinstance((cell.plan or {}).get("predict"), dict):
        return True
    return any(evidence_kind(r) != "observed" for r in cell.records)


def prediction_of(cell: Cell) -> dict[str, str]:
    """The cell's target, platform and method as its plan names them."""
    given = (cell.plan or {}).get("predict") or {}
    return {key: str(given.get(key, "?")) for key in ("target", "platform", "method")}


def versions(cell: Cell) -> str:
    """The framework release(s) that made the prediction, from env.json."""
    device = (cell.env or {}).get("device") or {}
    found = [str(device.get("framework_version") or "?")]
    for key in ("torch_xla_version", "jaxlib_version"):
        if device.get(key):
            found.append(f"{key.split('_')[0].replace('torch', 'torch_xla')} {device[key]}")
    return ", ".join(found)


def _verdict(record: dict[str, Any]) -> str | None:
    given = record.get("prediction")
    verdict = given.get("verdict") if isinstance(given, dict) else None
    return verdict if verdict in VERDICTS else None


def predicted_outcomes(cell: Cell) -> dict[tuple[str, str | None], str]:
    """Per-function predicted outcomes. A failure the host or supervisor recorded (a crash,
    a timeout on this machine) carries no verdict: it says nothing of the target and counts
    as not predictable (untested), never as a predicted failure."""
    records = [
        {**r, "outcome": "skip", "stage": None, "category": None}
        if r.get("outcome") == "fail" and _verdict(r) is None
        else r
        for r in cell.records
    ]
    return function_outcomes(cell.plan or {"functions": []}, records)


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
        verdicts = Counter(_verdict(r) for r in cell.records)
        categories = Counter(str(r.get("category")) for r in cell.records if _verdict(r) == "fail")
        functions = Counter(predicted_outcomes(cell).values())
        method = prediction_of(cell)
        table.rows.append(
            [
                cell.name,
                f"{method['method']} ({method['platform']})",
                versions(cell),
                cell.status,
                len(cell.records),
                verdicts["pass"],
                verdicts["fail"],
                verdicts["not_predictable"],
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
            verdict = _verdict(record)
            if verdict not in ("fail", "not_predictable") or shown >= limit_per_cell:
                continue
            shown += 1
            why = str((record.get("prediction") or {}).get("why") or record.get("reason") or "")
            if verdict == "not_predictable":
                why = str(record.get("reason") or why)
            table.rows.append(
                [cell.name, record["case"], verdict, record.get("category") or "-", why[:200]]
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
