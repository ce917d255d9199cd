"""The study's published outcome tables (paper/published_tables.csv) three ways: as printed,
recounted from its own imported data, and recounted without its harness's own errors
(:mod:`.harness`); portbench's cells of the same kind beside them, apart.

Tables 1, 3 and 8 are function outcome counts, Table 4 failure rates of the top 20 against
all. Where the study's data cannot give a number (no usable report), the row says so
instead of showing a zero.
"""

from __future__ import annotations

import csv
from collections import Counter
from typing import Any

from ..errors import UsageError
from ..outcomes import function_outcomes
from ..paths import project_root
from ..results import StudyRecord
from .latency import latest_cells
from .load import Cell
from .study_sources import is_study_profile
from .tables import Table

__all__ = [
    "harness_cases",
    "harness_functions",
    "outcomes_without_harness",
    "portbench_beside",
    "published_outcomes",
    "published_rows",
    "published_strata",
]

STUDY_DEVICE = {"gpu": "gpu-t4", "tpu": "tpu-v3", "t4": "gpu-t4", "a100": "gpu-a100"}
OUTCOME_TABLES = ("Table 8", "Table 1", "Table 3")
_PPC = ("pass", "partial", "complete")


def published_rows(table: str) -> list[dict[str, str]]:
    path = project_root() / "paper" / "published_tables.csv"
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return [r for r in csv.DictReader(f) if r["table"] == table]
    except FileNotFoundError:
        raise UsageError(
            f"{path} is missing: the report sets the study's published tables beside its own; "
            "run it from a portbench checkout (or set PORTBENCH_HOME to one)"
        ) from None


def outcomes_without_harness(cell: Cell) -> dict[tuple[str, str | None], str]:
    """Function outcomes with every record the harness rules mark left out (a function whose
    only sub-tests were the harness's becomes untested, still in the denominator)."""
    kept = [r for r in cell.records if not (isinstance(r, StudyRecord) and r.harness)]
    return function_outcomes(cell.plan, kept)


def _study_cells(cells: list[Cell]) -> dict[tuple[str, str], Cell]:
    return {(c.framework, c.accelerator): c for c in latest_cells(cells) if c.profile == "study"}


def _has_outcomes(cell: Cell) -> bool:
    return bool(cell.study_facts.get("report"))


def _format(counts: Counter[str], percent: bool) -> str:
    if not percent:
        return "/".join(str(counts[k]) for k in _PPC)
    tested = sum(counts[k] for k in _PPC)
    return "/".join(f"{100 * counts[k] / tested:.0f}%" for k in _PPC) if tested else "-"


def _printed(row: dict[str, str]) -> str:
    return "/".join(row[k] for k in ("success", "partial_failure", "complete_failure"))


def published_outcomes(cells: list[Cell]) -> Table:
    """Tables 1, 3 and 8: as printed, recounted, and recounted without harness errors."""
    table = Table(
        "published-outcomes",
        "The study's Tables 1, 3, 8 (pass/partial/complete): printed, recounted, "
        "recounted without its harness's errors",
        [
            "table",
            "framework",
            "device",
            "printed",
            "recount",
            "without harness",
            "harness changes",
            "note",
        ],
        note=(
            "Table 8 in functions, Tables 1 and 3 in percent of the functions with an outcome. "
            "Recount: the study's sub-test outcomes from the newest report it ran with its "
            "standard placement. Without harness: the same, leaving out every sub-test the "
            "harness rules mark (paper/harness.toml; table study-harness lists each). "
            "'harness changes': functions whose outcome that changes."
        ),
    )
    study = _study_cells(cells)
    for name in OUTCOME_TABLES:
        percent = name != "Table 8"
        for row in published_rows(name):
            cell = study.get((row["framework"], STUDY_DEVICE[row["device"]]))
            printed_note = row.get("note") or ""
            printed_note = "" if printed_note == "percentages as printed" else printed_note
            if cell is None or not _has_outcomes(cell):
                why = (
                    "the study's data was not imported"
                    if cell is None
                    else str(cell.study_facts.get("report_note") or "")
                )
                table.rows.append(
                    [name, row["framework"], row["device"], _printed(row), "-", "-", "-", why]
                )
                continue
            recount = Counter(cell.function_outcomes().values())
            clean = Counter(outcomes_without_harness(cell).values())
            changed = len(harness_functions(cell))
            notes = [printed_note] if printed_note else []
            if not percent:
                diff = [
                    recount[k] - int(row[s])
                    for k, s in zip(_PPC, ("success", "partial_failure", "complete_failure"))
                ]
                notes.append("recount - printed: " + "/".join(f"{d:+d}" for d in diff))
            if recount["untested"] or clean["untested"]:
                notes.append(f"untested: {recount['untested']} / {clean['untested']}")
            table.rows.append(
                [
                    name,
                    row["framework"],
                    row["device"],
                    _printed(row),
                    _format(recount, percent),
                    _format(clean, percent),
                    changed,
                    "; ".join(notes),
                ]
            )
    return table


def harness_functions(cell: Cell) -> dict[tuple[str, str | None], tuple[str, str]]:
    """Functions whose outcome the harness records change: key -> (recount, without)."""
    before = cell.function_outcomes()
    after = outcomes_without_harness(cell)
    return {k: (v, after[k]) for k, v in before.items() if after.get(k) != v}


def harness_cases(cells: list[Cell]) -> Table:
    """Every sub-test of the study's T4 and TPU v3 cells that the harness rules mark, with
    what it did to its function's outcome."""
    table = Table(
        "study-harness",
        "The study's harness errors: sub-tests not counted against the framework",
        ["cell", "function", "sub-test", "study outcome", "rule", "function outcome", "why"],
    )
    for (_, accelerator), cell in sorted(_study_cells(cells).items()):
        if accelerator not in ("gpu-t4", "tpu-v3") or not _has_outcomes(cell):
            continue
        changed = harness_functions(cell)
        study = [r for r in cell.records if isinstance(r, StudyRecord)]
        for r in sorted(study, key=lambda r: (r.function, r.study_key or "")):
            harness = r.harness
            if harness is None:
                continue
            key = (r.function, r.study_test_file)
            effect = "->".join(changed[key]) if key in changed else "unchanged"
            table.rows.append(
                [
                    cell.name,
                    r.function,
                    r.case_name,
                    r.study_outcome,
                    harness.rule,
                    effect,
                    harness.why,
                ]
            )
    counts = Counter(row[0] for row in table.rows)
    return Table(
        table.name,
        table.title,
        table.headers,
        table.rows,
        "; ".join(f"{cell}: {n} sub-tests" for cell, n in sorted(counts.items())),
    )


def _flavor(accelerator: str) -> str:
    return accelerator.split("-", maxsplit=1)[0]


def portbench_beside(cells: list[Cell]) -> Table:
    """Tables 1 and 8 as printed beside each of portbench's cells of the same flavor."""
    table = Table(
        "published-outcomes-portbench",
        "The study's Tables 1 and 8 beside portbench's cells",
        [
            "framework",
            "device",
            "printed",
            "portbench cell",
            "pass/partial/complete",
            "untested",
            "%",
        ],
    )
    ours = [c for c in latest_cells(cells) if not is_study_profile(c.profile)]
    for row in published_rows("Table 8"):
        for cell in ours:
            if cell.framework != row["framework"] or _flavor(cell.accelerator) != row["device"]:
                continue
            counts = Counter(cell.function_outcomes().values())
            table.rows.append(
                [
                    row["framework"],
                    row["device"],
                    _printed(row),
                    cell.name,
                    _format(counts, False),
                    counts["untested"],
                    _format(counts, True),
                ]
            )
    return table


def _rate(outcomes: dict[tuple[str, str | None], str], strata: dict[Any, str], top: bool) -> str:
    values = [
        v for k, v in outcomes.items() if v != "untested" and (not top or strata.get(k) == "top20")
    ]
    failing = sum(1 for v in values if v in ("partial", "complete"))
    return f"{100 * failing / len(values):.0f}% ({failing}/{len(values)})" if values else "-"


def published_strata(cells: list[Cell]) -> Table:
    """Table 4 (failure rate of the top 20 and of all functions) three ways for the study,
    and each of portbench's cells of the same flavor below it."""
    table = Table(
        "published-strata",
        "The study's Table 4 (failure rate, top 20 / all): printed, recounted, without harness",
        [
            "framework",
            "device",
            "printed",
            "cell",
            "recount top20",
            "recount all",
            "no-harness top20",
            "no-harness all",
        ],
        note="rate: partial or complete over the functions with an outcome; portbench's own "
        "broken cases are `error`, never counted, so it has no harness column",
    )
    study = _study_cells(cells)
    for row in published_rows("Table 4"):
        device = STUDY_DEVICE[row["device"]]
        candidates = (
            [study[(row["framework"], device)]] if (row["framework"], device) in study else []
        )
        candidates += [
            c
            for c in latest_cells(cells)
            if not is_study_profile(c.profile)
            and c.framework == row["framework"]
            and _flavor(c.accelerator) == row["device"]
        ]
        for cell in candidates:
            functions = () if cell.plan is None else cell.plan.functions
            strata = {(f.function, f.study_test_file): str(f.stratum) for f in functions}
            outcomes = cell.function_outcomes()
            study_cell = is_study_profile(cell.profile)
            clean = outcomes_without_harness(cell) if study_cell else None
            if study_cell and not _has_outcomes(cell):
                recount = ["-", "-", "-", "-"]
            else:
                recount = [
                    _rate(outcomes, strata, True),
                    _rate(outcomes, strata, False),
                    _rate(clean, strata, True) if clean is not None else "n/a",
                    _rate(clean, strata, False) if clean is not None else "n/a",
                ]
            table.rows.append([row["framework"], row["device"], row["note"], cell.name, *recount])
    return table
