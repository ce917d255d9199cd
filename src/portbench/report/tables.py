"""The report's tables, computed from loaded cells (one job each, pure functions)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from portbench_runner.contract import StrEnum

from ..outcomes import FUNCTION_OUTCOMES, OUTCOME_LABELS
from ..paths import project_root
from ..results import Category, Outcome, StudyRecord
from .load import Cell

__all__ = [
    "NO_OUTCOMES",
    "Table",
    "cpu_too",
    "curation",
    "failure_categories",
    "failures",
    "portability",
    "provenance",
    "strata",
    "without_outcomes",
]


@dataclass(frozen=True)
class Table:
    name: str
    title: str
    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    note: str = ""


#: The status of a cell whose records hold no outcome (a study device without a test report).
NO_OUTCOMES = "no outcomes"


def without_outcomes(cell: Cell) -> bool:
    """Every record of ``cell`` says its outcome is unknown (the study kept no report)."""
    return bool(cell.records) and all(
        isinstance(r, StudyRecord) and r.study_outcome == "unrecorded" for r in cell.records
    )


def _value(member: StrEnum | None) -> str | None:
    """An enum member as a table shows it (None stays None)."""
    return None if member is None else member.value


def portability(cells: list[Cell]) -> Table:
    """Tables 1 and 8 of the study: function outcomes per cell, counts and percent."""
    table = Table(
        "portability",
        "Portability: functions per cell",
        [
            "cell",
            "device",
            "status",
            "functions",
            *(OUTCOME_LABELS.get(k, k) for k in FUNCTION_OUTCOMES),
            "pass %",
            "partial %",
            "complete %",
        ],
    )
    for cell in cells:
        counts = Counter(cell.function_outcomes().values())
        total = sum(counts.values())
        # A study device whose test report the study did not keep has timings and no
        # outcome at all: that is "no outcomes", never a complete cell at 0% pass.
        blind = without_outcomes(cell)
        pct = [
            f"{100 * counts[k] / total:.0f}%" if total and not blind else "-"
            for k in ("pass", "partial", "complete")
        ]
        table.rows.append(
            [
                cell.name,
                cell.device_name,
                NO_OUTCOMES if blind else cell.status,
                total,
                *(counts[k] for k in FUNCTION_OUTCOMES),
                *pct,
            ]
        )
    return table


def strata(cells: list[Cell]) -> Table:
    """Figures 4, 5 and Table 4: failure rate (partial or complete) by frequency stratum, and
    the top 20 against all sampled functions."""
    table = Table(
        "strata",
        "Failure rate by frequency stratum",
        ["cell", "stratum", "functions", "failing", "rate"],
    )
    for cell in cells:
        outcomes = cell.function_outcomes()
        functions = () if cell.plan is None else cell.plan.functions
        stratum_of = {(f.function, f.study_test_file): str(f.stratum) for f in functions}
        groups: dict[str, list[str]] = defaultdict(list)
        for key, outcome in outcomes.items():
            groups[stratum_of.get(key, "?")].append(outcome)
        groups["all"] = list(outcomes.values())
        order = ["top20", *(str(i) for i in range(1, 11)), "1|2", "?", "all"]
        for stratum in sorted(groups, key=lambda g: order.index(g) if g in order else len(order)):
            values = groups[stratum]
            failing = sum(1 for v in values if v in ("partial", "complete"))
            table.rows.append(
                [
                    cell.name,
                    stratum,
                    len(values),
                    failing,
                    f"{100 * failing / len(values):.0f}%" if values else "-",
                ]
            )
    return table


def failures(cells: list[Cell]) -> Table:
    """Figure 6: failed cases by category and stage per cell."""
    table = Table(
        "failures", "Failures by category and stage", ["cell", "category", "stage", "cases"]
    )
    for cell in cells:
        counts = Counter(
            (_value(r.category), _value(r.stage)) for r in cell.records if r.outcome is Outcome.FAIL
        )
        for (category, stage), n in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0]))):
            table.rows.append([cell.name, category, stage, n])
    return table


def failure_categories(cells: list[Cell]) -> Table:
    """Why each cell's cases failed: per cell the failed cases, how many no rule explains
    (`other`, listed in `curation`) and their share, and the named categories."""
    table = Table(
        "failures-categories",
        "Failures by category per cell (why)",
        ["cell", "failed", "other", "other %", "named categories"],
        note="`other` is what no rule of manifests/<framework>/rules.toml (or the study's "
        "paper/harness.toml) explains; each such case is listed in `curation`.",
    )
    for cell in cells:
        counts = Counter(
            _value(r.category) or "none" for r in cell.records if r.outcome is Outcome.FAIL
        )
        failed = sum(counts.values())
        if not failed:
            continue
        other = counts.pop(Category.OTHER.value, 0)
        named = ", ".join(
            f"{c} {n}" for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        table.rows.append([cell.name, failed, other, f"{100 * other / failed:.1f}%", named or "-"])
    return table


def cpu_too(cells: list[Cell]) -> Table:
    """Cases that failed on an accelerator and on the framework's CPU in the same worker:
    shown apart, never counted as the accelerator's portability failures."""
    table = Table(
        "cpu_too",
        "Fails on the CPU too (left out of the accelerator's verdict)",
        ["cell", "case", "here", "on the CPU", "message"],
        note="Each case failed here and when run again on the framework's CPU in the same "
        "process; its function's verdict counts only the cases the CPU does not fail.",
    )
    for cell in cells:
        for r in cell.records:
            ref = r.cpu_reference
            if not r.fails_on_cpu or ref is None:
                continue
            table.rows.append(
                [
                    cell.cell_id,
                    r.case,
                    f"{_value(r.stage)}/{_value(r.category)}",
                    f"{_value(ref.stage)}/{ref.category}",
                    (ref.message or "")[:160],
                ]
            )
    return table


def curation(cells: list[Cell]) -> Table:
    """`other` failures and `error` cases with their messages, for curation."""
    table = Table(
        "curation",
        "For curation: unclassified failures and errors",
        ["cell", "case", "outcome", "message"],
    )
    for cell in cells:
        study = cell.is_study
        for r in cell.records:
            # The study's errors are its data, but its unexplained failures are gaps of our
            # rules, curated like our own.
            if (r.outcome is Outcome.ERROR and not study) or (
                r.outcome is Outcome.FAIL and r.category is Category.OTHER
            ):
                message = r.message.splitlines()
                table.rows.append(
                    [cell.name, r.case, r.outcome.value, message[0][:160] if message else ""]
                )
    return table


def shown_path(path: Path) -> str:
    """Where a cell lies, without this machine's layout (a published report carries it):
    relative to the project when inside it, else its run and cell folders."""
    resolved = path.resolve()
    root = project_root()
    if resolved.is_relative_to(root):
        return resolved.relative_to(root).as_posix()
    return "/".join(resolved.parts[-2:])


def provenance(cells: list[Cell]) -> Table:
    """Where every cell's numbers come from; a failed or incomplete cell is listed as such."""
    table = Table(
        "provenance",
        "Provenance per cell",
        [
            "cell",
            "status",
            "backend",
            "image / source",
            "framework version",
            "device",
            "driver",
            "python",
            "started",
            "cases",
            "unreadable lines",
            "path",
        ],
    )
    for cell in cells:
        env = cell.env
        study = cell.study_facts
        if study:
            source = (
                f"{study.get('repository')}@{str(study.get('commit'))[:7]}: {study.get('runs')} "
                f"timing runs; report: {study.get('report') or study.get('report_note')}"
            )
        else:
            source = env.image.tag if env is not None and env.image is not None else ""
        driver = env.section("device").get("driver_version") if env is not None else None
        table.rows.append(
            [
                cell.name,
                cell.status,
                cell.backend,
                source,
                (env.framework_version if env is not None else "") or "?",
                cell.device_name,
                driver or "",
                (env.python_version if env is not None else "") or "?",
                (env.started_at if env is not None else "") or "",
                len(cell.records),
                cell.unreadable_lines,
                shown_path(cell.path),
            ]
        )
    return table
