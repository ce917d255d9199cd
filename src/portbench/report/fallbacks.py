"""Work that silently left the accelerator (#20): counts per cell, both views, and the list.

A case can pass with its output on the device while part of its work ran on the host
(JAX's hybrid eig kernel, torch_xla's ``aten::`` fallbacks, TensorFlow under soft
placement). The runner's probes record that as ``evidence``; a plan in ``mark`` mode lets
such a case pass with the mark, in ``fail`` mode it fails as ``fallback``. This table
shows every cell both ways: as recorded, and with every marked pass counted as a failure.
The study's cells could not see fallbacks at all (no probe looked): they are shown as
such, so their numbers are read as the upper bound they are.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..outcomes import function_outcomes
from ..results import fallback_seen
from .load import STUDY_BACKEND, Cell
from .tables import Table

__all__ = ["fallback_cases", "fallbacks", "strict_records"]

#: Host-work items shown per case in the list (the record keeps up to 16).
ITEMS_SHOWN = 3


def strict_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with every marked pass turned into a ``fallback`` failure."""
    return [
        {**r, "outcome": "fail", "stage": "call", "category": "fallback"}
        if r.get("outcome") == "pass" and fallback_seen(r.get("evidence"))
        else r
        for r in records
    ]


def _counts(outcomes: dict[Any, str]) -> str:
    counts = Counter(outcomes.values())
    return f"{counts['pass']} / {counts['partial']} / {counts['complete']}"


def fallbacks(cells: list[Cell]) -> Table:
    """Per cell: cases probed, not seen, marked passes, fallback failures, functions
    touched, and pass / partial / complete as recorded and with fallbacks as failures."""
    table = Table(
        "fallbacks",
        "Fallbacks: work that ran on the host",
        [
            "cell",
            "setting",
            "probed",
            "not seen",
            "marked pass",
            "failed fallback",
            "functions",
            "as recorded p/pa/c",
            "fallback = failure p/pa/c",
        ],
        note="setting: the plan's fallback mode (and the platform JAX lowered for, where "
        "not the cell's own; such evidence was lowered, not run). probed: cases whose evidence a probe could read; not seen: a probe ran but "
        "could not look (the note in the record says why); p/pa/c: functions pass / partial "
        "/ complete; no probe: this framework and device have none (a CPU cell has nowhere "
        "to fall back to). The study's cells had no probe: their numbers could not see "
        "fallbacks.",
    )
    for cell in cells:
        plan = cell.plan or {"functions": []}
        recorded = _counts(function_outcomes(plan, cell.records))
        if cell.backend == STUDY_BACKEND:
            # The study's own numbers, beside ours: it had no probe, so they could not
            # tell a pass on the device from a pass on the host.
            table.rows.append([cell.cell_id, "none", "-", "-", "-", "-", "-", recorded, "not seen"])
            continue
        evidence: list[dict[str, Any]] = [
            r["evidence"] for r in cell.records if isinstance(r.get("evidence"), dict)
        ]
        marked = [
            r for r in cell.records if r["outcome"] == "pass" and fallback_seen(r.get("evidence"))
        ]
        failed = [
            r for r in cell.records if r["outcome"] == "fail" and r.get("category") == "fallback"
        ]
        probed = sum(1 for e in evidence if e.get("seen") is True)
        table.rows.append(
            [
                cell.cell_id,
                _setting(plan),
                probed,
                sum(1 for e in evidence if e.get("seen") is False),
                len(marked),
                len(failed),
                len({r["function"] for r in marked + failed}),
                recorded,
                _counts(function_outcomes(plan, strict_records(cell.records)))
                if evidence
                else "no probe",
            ]
        )
    return table


def _setting(plan: dict[str, Any]) -> str:
    given = plan.get("fallback")
    if not isinstance(given, dict):
        return "mark (plan before #20)"
    text = str(given.get("mode", "mark"))
    if given.get("soft_placement"):
        text += ", soft placement"
    if given.get("lower_for"):
        text += f", lowered for {given['lower_for']}"
    return text


def _host_work(evidence: Any) -> str:
    if not isinstance(evidence, dict):
        return ""
    items = evidence.get("host_work") or []
    text = "; ".join(f"{i.get('kind')}: {i.get('what')}" for i in items[:ITEMS_SHOWN])
    more = len(items) - ITEMS_SHOWN + int(evidence.get("host_work_dropped") or 0)
    return text + (f"; +{more} more" if more > 0 else "")


def fallback_cases(cells: list[Cell]) -> Table:
    """Every case a probe saw fall back, with what ran on the host, for backend teams."""
    table = Table(
        "fallback_cases",
        "Fallbacks, case by case",
        ["cell", "case", "outcome", "probe", "platform", "host work"],
    )
    for cell in cells:
        for r in cell.records:
            evidence = r.get("evidence")
            if fallback_seen(evidence) or r.get("category") == "fallback":
                evidence = evidence if isinstance(evidence, dict) else {}
                table.rows.append(
                    [
                        cell.cell_id,
                        r["case"],
                        "pass (marked)" if r["outcome"] == "pass" else r["outcome"],
                        evidence.get("probe", "output placement"),
                        evidence.get("platform", ""),
                        _host_work(evidence) or ((r.get("error") or {}).get("message") or "")[:200],
                    ]
                )
    return table
