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
from collections.abc import Iterable
from dataclasses import replace

from portbench_runner.contract import Evidence, Plan

from ..outcomes import function_outcomes
from ..results import AnyRecord, CaseRecord, Category, Outcome, Stage
from .load import Cell
from .tables import Table

__all__ = ["fallback_cases", "fallbacks", "strict_records"]

#: Host-work items shown per case in the list (the record keeps up to 16).
ITEMS_SHOWN = 3


def strict_records(records: Iterable[AnyRecord]) -> list[AnyRecord]:
    """The records with every marked pass turned into a ``fallback`` failure."""
    return [
        replace(r, outcome=Outcome.FAIL, stage=Stage.CALL, category=Category.FALLBACK)
        if isinstance(r, CaseRecord) and r.outcome is Outcome.PASS and r.fallback_marked
        else r
        for r in records
    ]


def _counts(outcomes: dict[tuple[str, str | None], str]) -> str:
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
        plan = cell.plan
        recorded = _counts(function_outcomes(plan, cell.records))
        if cell.is_study or not isinstance(plan, Plan):
            # The study's own numbers, beside ours: it had no probe, so they could not
            # tell a pass on the device from a pass on the host.
            table.rows.append([cell.cell_id, "none", "-", "-", "-", "-", "-", recorded, "not seen"])
            continue
        evidence = [r.evidence for r in cell.records if r.evidence is not None]
        marked = [r for r in cell.records if r.outcome is Outcome.PASS and r.fallback_marked]
        failed = [
            r for r in cell.records if r.outcome is Outcome.FAIL and r.category is Category.FALLBACK
        ]
        probed = sum(1 for e in evidence if e.seen is True)
        table.rows.append(
            [
                cell.cell_id,
                _setting(plan),
                probed,
                sum(1 for e in evidence if e.seen is False),
                len(marked),
                len(failed),
                len({r.function for r in marked + failed}),
                recorded,
                _counts(function_outcomes(plan, strict_records(cell.records)))
                if evidence
                else "no probe",
            ]
        )
    return table


def _setting(plan: Plan) -> str:
    if plan.schema < 2:
        return "mark (plan before #20)"
    given = plan.fallback
    text = given.mode.value
    if given.soft_placement:
        text += ", soft placement"
    if given.lower_for:
        text += f", lowered for {given.lower_for}"
    return text


def _host_work(evidence: Evidence | None) -> str:
    if evidence is None:
        return ""
    items = evidence.host_work
    text = "; ".join(f"{i.kind}: {i.what}" for i in items[:ITEMS_SHOWN])
    more = len(items) - ITEMS_SHOWN + (evidence.host_work_dropped or 0)
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
            if not (r.fallback_marked or r.category is Category.FALLBACK):
                continue
            evidence = r.evidence
            table.rows.append(
                [
                    cell.cell_id,
                    r.case,
                    "pass (marked)" if r.outcome is Outcome.PASS else r.outcome.value,
                    (evidence.probe if evidence else None) or "output placement",
                    (evidence.platform if evidence else None) or "",
                    _host_work(evidence) or r.message[:200],
                ]
            )
    return table
