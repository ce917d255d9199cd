"""The report's tables, computed from loaded cells (one job each, pure functions)."""

from __future__ import annotations

import csv
import itertools
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..outcomes import FUNCTION_OUTCOMES, function_outcomes
from ..paths import project_root
from .load import Cell

__all__ = [
    "Table",
    "curation",
    "failures",
    "latency_pairs",
    "portability",
    "provenance",
    "published",
]


@dataclass(frozen=True)
class Table:
    name: str
    title: str
    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    note: str = ""


def _function_outcomes(cell: Cell) -> dict[tuple[str, str | None], str]:
    # Every planned function counts, with or without records (the denominator).
    return function_outcomes(cell.plan or {"functions": []}, cell.records)


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
            *FUNCTION_OUTCOMES,
            "pass %",
            "partial %",
            "complete %",
        ],
    )
    for cell in cells:
        counts = Counter(_function_outcomes(cell).values())
        total = sum(counts.values())
        pct = [
            f"{100 * counts[k] / total:.0f}%" if total else "-"
            for k in ("pass", "partial", "complete")
        ]
        table.rows.append(
            [
                cell.cell_id,
                cell.device_name,
                cell.status,
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
        outcomes = _function_outcomes(cell)
        stratum_of = {
            (f["function"], f.get("study_test_file")): str(f.get("stratum"))
            for f in (cell.plan or {}).get("functions", [])
        }
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
                    cell.cell_id,
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
            (r.get("category"), r.get("stage")) for r in cell.records if r["outcome"] == "fail"
        )
        for (category, stage), n in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0]))):
            table.rows.append([cell.cell_id, category, stage, n])
    return table


def curation(cells: list[Cell]) -> Table:
    """`other` failures and `error` cases with their messages, for curation."""
    table = Table(
        "curation",
        "For curation: unclassified failures and errors",
        ["cell", "case", "outcome", "message"],
    )
    for cell in cells:
        for r in cell.records:
            if r["outcome"] == "error" or (r["outcome"] == "fail" and r.get("category") == "other"):
                message = (
                    (r.get("error") or {}).get("message") or r.get("reason") or ""
                ).splitlines()
                table.rows.append(
                    [cell.cell_id, r["case"], r["outcome"], message[0][:160] if message else ""]
                )
    return table


def _passed_latency(cell: Cell) -> dict[tuple[str, str | None], dict[str, float]]:
    per_case = {}
    for r in cell.records:
        warm = (r.get("timing") or {}).get("warm")
        if r["outcome"] == "pass" and warm:
            per_case[r["case"]] = (
                r["function"],
                r.get("study_test_file"),
                warm["median_ms"],
                (r["timing"] or {}).get("cold_ms"),
            )
    grouped: dict[tuple[str, str | None], dict[str, float]] = defaultdict(dict)
    for case, (fn, test_file, warm_ms, _) in per_case.items():
        grouped[(fn, test_file)][case] = warm_ms
    return grouped


def latency_pairs(cells: list[Cell]) -> list[Table]:
    """Tables 5-7 / Figure 3: per function, warm latency on two accelerators and the ratio,
    over cases that passed on both sides; the share faster on each side, share > 10x slower."""
    tables = []
    by_group: dict[tuple[str, str], list[Cell]] = defaultdict(list)
    for cell in cells:
        if cell.status != "failed":
            by_group[(cell.framework, cell.profile)].append(cell)
    for (framework, profile), group in sorted(by_group.items()):
        for a, b in itertools.combinations(sorted(group, key=lambda c: c.accelerator), 2):
            if a.accelerator == b.accelerator:
                continue
            la, lb = _passed_latency(a), _passed_latency(b)
            rows: list[list[Any]] = []
            ratios: list[float] = []
            for key in sorted(set(la) & set(lb)):
                shared = sorted(set(la[key]) & set(lb[key]))
                if not shared:
                    continue
                ms_a = statistics.median(la[key][c] for c in shared)
                ms_b = statistics.median(lb[key][c] for c in shared)
                ratio = ms_b / ms_a if ms_a else None
                if ratio:
                    ratios.append(ratio)
                rows.append(
                    [
                        key[0],
                        len(shared),
                        round(ms_a, 4),
                        round(ms_b, 4),
                        round(ratio, 3) if ratio else None,
                    ]
                )
            rows.sort(key=lambda r: -float(r[4] or 0))
            note = ""
            if ratios:
                slower = sum(1 for x in ratios if x > 1) / len(ratios)
                note = f"{b.accelerator} slower on {slower:.0%} of functions, faster on {1 - slower:.0%}; more than 10x slower on {sum(1 for x in ratios if x > 10) / len(ratios):.0%}; geometric mean ratio {statistics.geometric_mean(ratios):.3g}"
            tables.append(
                Table(
                    f"latency-{framework}-{profile}-{a.accelerator}-vs-{b.accelerator}",
                    f"Warm latency, {framework} ({profile}): {a.accelerator} vs {b.accelerator}",
                    [
                        "function",
                        "cases",
                        f"{a.accelerator} ms",
                        f"{b.accelerator} ms",
                        f"{b.accelerator}/{a.accelerator}",
                    ],
                    rows,
                    note,
                )
            )
    return tables


def published(cells: list[Cell]) -> Table:
    """The study's Table 8 (function counts on GPU and TPU) beside reproduced cells of the same kind."""
    path = project_root() / "paper" / "published_tables.csv"
    table = Table(
        "published",
        "The study's Table 8 beside the reproduction",
        [
            "framework",
            "device",
            "study success",
            "study partial",
            "study complete",
            "study n",
            "cell",
            "success",
            "partial",
            "complete",
            "n",
        ],
    )
    with open(path, newline="", encoding="utf-8") as handle:
        study = [r for r in csv.DictReader(handle) if r["table"] == "Table 8"]
    kinds = {"gpu": "cuda", "tpu": "tpu"}
    for row in study:
        matching = [
            c
            for c in cells
            if c.framework == row["framework"]
            and c.accelerator.split("-")[0] == row["device"]
            and c.status != "failed"
        ]
        if not matching:
            table.rows.append(
                [
                    row["framework"],
                    row["device"],
                    row["success"],
                    row["partial_failure"],
                    row["complete_failure"],
                    row["denominator"],
                    f"no {kinds[row['device']]} cell",
                    "",
                    "",
                    "",
                    "",
                ]
            )
        for cell in matching:
            counts = Counter(_function_outcomes(cell).values())
            table.rows.append(
                [
                    row["framework"],
                    row["device"],
                    row["success"],
                    row["partial_failure"],
                    row["complete_failure"],
                    row["denominator"],
                    cell.cell_id,
                    counts["pass"],
                    counts["partial"],
                    counts["complete"],
                    sum(counts.values()),
                ]
            )
    return table


def provenance(cells: list[Cell]) -> Table:
    table = Table(
        "provenance",
        "Provenance per cell",
        [
            "cell",
            "status",
            "backend",
            "image",
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
        env = cell.env or {}
        image = (env.get("image") or {}).get("tag") if env.get("image") else ""
        device = env.get("device") or {}
        table.rows.append(
            [
                cell.cell_id,
                cell.status,
                cell.backend,
                image or "",
                env.get("framework_version", "?"),
                cell.device_name,
                device.get("driver_version") or "",
                (env.get("python") or {}).get("version", "?"),
                env.get("started_at", "?"),
                len(cell.records),
                cell.unreadable_lines,
                str(cell.path),
            ]
        )
    return table
