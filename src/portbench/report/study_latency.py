"""The study's Tables 5-7 (GPU and TPU latency per function) recounted from its own data,
row by row, and portbench's cells set beside them in the study's own quantity.

The study's quantity, found by recounting every printed row: per sub-test, the mean of all
its timed calls over the runs; per function, the mean over the sub-tests that are usable on
both devices. A sub-test is usable on a device when it has timed calls in every run file of
that device and the device's report says it passed, does not list it, or failed it by the
study's own harness (those sub-tests were timed before the harness failed: JAX's ``ones``,
``zeros``, ``vjp``). With the newest standard-placement reports this one rule gives every
printed row of the three tables.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from portbench_runner.contract import StudyPlan

from ..results import Outcome, StudyRecord
from .latency import latest_cells
from .load import Cell
from .published import published_rows
from .study_sources import is_study_profile
from .study_timing import usable_timing
from .tables import Table

__all__ = ["published_latency", "study_quantity_beside", "study_subtest_means"]

LATENCY_TABLES = {"torch": "Table 5", "tensorflow": "Table 6", "jax": "Table 7"}
RULE = (
    "per sub-test the mean of its timed calls over the runs, per function the mean over "
    "sub-tests usable on both devices (timed in every run; passed, not in the device's "
    "report, or failed by the study's harness)"
)


def study_subtest_means(cell: Cell) -> dict[tuple[str, str], float]:
    """(study test file, sub-test name) -> the sub-test's mean, for usable sub-tests."""
    out = {}
    for record in cell.records:
        value = usable_timing(record)
        if value is not None:
            out[(str(record.study_test_file), record.case_name)] = value
    return out


def _recount(gpu: Cell, tpu: Cell) -> tuple[dict[str, tuple[float, float, int]], dict[str, str]]:
    """Per test file: (gpu mean, tpu mean, sub-tests), and for files with no shared sub-test,
    how many were usable on each side."""
    g, t = study_subtest_means(gpu), study_subtest_means(tpu)
    shared: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for key in set(g) & set(t):
        shared[key[0]].append((g[key], t[key]))
    values = {
        test_file: (
            statistics.fmean(x for x, _ in pairs),
            statistics.fmean(y for _, y in pairs),
            len(pairs),
        )
        for test_file, pairs in shared.items()
    }
    alone: dict[str, str] = {}
    for test_file in {k[0] for k in g} | {k[0] for k in t}:
        if test_file not in values:
            n_g = sum(1 for k in g if k[0] == test_file)
            n_t = sum(1 for k in t if k[0] == test_file)
            alone[test_file] = f"usable sub-tests: {n_g} on the gpu, {n_t} on the tpu, none on both"
    return values, alone


def close(value: float, printed: str) -> bool:
    """Equal within the printed rounding (three decimals) and 0.1%."""
    target = float(printed)
    return abs(value - target) <= 0.0015 + 0.001 * target


def test_file_of(cell: Cell, published_name: str) -> str | None:
    inferred = published_name.removeprefix("UNRECOVERED (inferred ").removesuffix(")")
    if not isinstance(cell.plan, StudyPlan):
        return None
    # Rows printed in a latency table first: JAX has two PRNGKey rows, one of them untimed.
    functions = sorted(cell.plan.functions, key=lambda f: not f.in_paper_latency_table)
    for f in functions:
        if published_name in (f.paper_label, f.function) or inferred == f.function:
            return str(f.study_test_file)
    return None


def _why(
    test_file: str | None, value: tuple[float, float, int] | None, alone: str | None, row: Any
) -> str:
    if test_file is None:
        return "no function of the study's list carries this label"
    if value is None:
        return f"{test_file}: " + (alone or "no usable sub-test on either device")
    printed = (("gpu", value[0], row["gpu_ms"]), ("tpu", value[1], row["tpu_ms"]))
    wrong = [side for side, got, want in printed if not close(got, want)]
    return (
        f"over its {value[2]} usable sub-tests the committed timing files give another mean on "
        f"{' and '.join(wrong)}: the printed value is not reproduced by them"
    )


@dataclass(frozen=True)
class Recounted:
    """How many printed rows of one latency table the recount matched."""

    table: str
    rows: int
    matched: int
    imported: bool


def published_latency(cells: list[Cell]) -> tuple[Table, dict[str, Recounted]]:
    """Tables 5-7 recounted from the study's imported T4 and TPU v3 cells, row by row, with
    why a row differs. Returns the table and the match counts per framework."""
    table = Table(
        "published-latency",
        "The study's Tables 5-7 (GPU and TPU latency, ms) recounted from its own data",
        [
            "table",
            "row",
            "function",
            "printed gpu",
            "recount gpu",
            "printed tpu",
            "recount tpu",
            "printed tpu/gpu",
            "recount tpu/gpu",
            "sub-tests",
            "match",
            "why it differs",
        ],
    )
    study = {
        (c.framework, c.accelerator): c
        for c in latest_cells(cells)
        if c.profile == "study"  # the standard placement only, never study-soft
    }
    summary: dict[str, Recounted] = {}
    for framework, name in LATENCY_TABLES.items():
        gpu, tpu = study.get((framework, "gpu-t4")), study.get((framework, "tpu-v3"))
        rows = published_rows(name)
        if gpu is None or tpu is None:
            summary[framework] = Recounted(name, len(rows), 0, False)
            continue
        values, alone = _recount(gpu, tpu)
        matched = 0
        for row in rows:
            test_file = test_file_of(gpu, row["function"])
            value = values.get(test_file or "")
            match = bool(
                value and close(value[0], row["gpu_ms"]) and close(value[1], row["tpu_ms"])
            )
            matched += match
            table.rows.append(
                [
                    name,
                    row["row"],
                    row["function"],
                    row["gpu_ms"],
                    round(value[0], 3) if value else "",
                    row["tpu_ms"],
                    round(value[1], 3) if value else "",
                    row["tpu_over_gpu"],
                    round(value[1] / value[0], 3) if value and value[0] else "",
                    value[2] if value else 0,
                    "yes" if match else "no",
                    "" if match else _why(test_file, value, alone.get(test_file or ""), row),
                ]
            )
        summary[framework] = Recounted(name, len(rows), matched, True)
    note = "; ".join(
        f"{v.table} ({k}): {v.matched}/{v.rows} rows within rounding"
        + ("" if v.imported else " (study data not imported)")
        for k, v in summary.items()
    )
    total = sum(v.rows for v in summary.values())
    hit = sum(v.matched for v in summary.values())
    if total:
        note += f"; overall {hit}/{total} ({100 * hit / total:.1f}%). The recount: {RULE}"
    note += ". " + _headline(table)
    return Table(table.name, table.title, table.headers, table.rows, note), summary


def _headline(table: Table) -> str:
    """The paper's headline shares are over the rows of Tables 5 and 7 (81.4% of PyTorch's
    43 rows more than 10x slower on the TPU, 91.8% of JAX's 61 faster): the recount's."""
    ratio = table.headers.index("recount tpu/gpu")
    parts = []
    for name, label, slower in (
        ("Table 5", "more than 10x slower on the TPU", True),
        ("Table 7", "faster on the TPU", False),
    ):
        values = [float(r[ratio]) for r in table.rows if r[0] == name and r[ratio] != ""]
        if values:
            hits = sum(1 for v in values if (v > 10 if slower else v < 1))
            parts.append(f"{name}: {hits}/{len(values)} ({100 * hits / len(values):.1f}%) {label}")
    return "; ".join(parts)


def _cold_mean(cell: Cell, test_file: str) -> tuple[float | None, float | None, int]:
    """The study's quantity for one of portbench's functions: the mean over passed cases of
    the first call (compilation included); beside it the geometric mean of warm medians."""
    cold, warm = [], []
    for record in cell.records:
        if record.study_test_file != test_file or record.outcome is not Outcome.PASS:
            continue
        if isinstance(record, StudyRecord) or record.timing is None:
            continue
        warm_ms = record.warm_median_ms
        if record.timing.cold_ms and warm_ms:
            cold.append(record.timing.cold_ms)
            warm.append(warm_ms)
    if not cold:
        return None, None, 0
    return statistics.fmean(cold), statistics.geometric_mean(warm), len(cold)


def study_quantity_beside(cells: list[Cell]) -> Table:
    """Every printed row of Tables 5-7 beside each of portbench's GPU and TPU cells of that
    framework, in the study's quantity (first call, compilation included, mean over cases)
    and, in its own column, portbench's warm median (geometric mean over the same cases)."""
    table = Table(
        "published-latency-portbench",
        "Tables 5-7 beside portbench: the study's quantity (cold call, mean over cases) "
        "and, apart, the warm median",
        [
            "table",
            "function",
            "printed gpu",
            "printed tpu",
            "portbench cell",
            "cases",
            "cold ms, mean (study's quantity)",
            "warm ms, geomean",
        ],
        note=(
            "Cold: portbench's first synchronized call of each case (compilation included), "
            "averaged over the passed cases, as the study averaged its sub-tests. What still "
            "differs: the study ran JAX with jit disabled, compiling op by op inside its timer, "
            "while portbench's cold call compiles the case's whole jitted function; the study's "
            "sub-tests and portbench's cases are different code. Cold and warm are never "
            "combined in one ratio."
        ),
    )
    ours = [
        c
        for c in latest_cells(cells)
        if not is_study_profile(c.profile) and c.accelerator.split("-")[0] in ("gpu", "tpu")
    ]
    for framework, name in LATENCY_TABLES.items():
        mine = [c for c in ours if c.framework == framework]
        if not mine:
            continue
        for row in published_rows(name):
            test_file = test_file_of(mine[0], row["function"])
            for cell in mine:
                cold, warm, n = _cold_mean(cell, test_file or "")
                if not n:
                    continue
                table.rows.append(
                    [
                        name,
                        row["function"],
                        row["gpu_ms"],
                        row["tpu_ms"],
                        cell.name,
                        n,
                        f"{cold:.4g}" if cold else "",
                        f"{warm:.4g}" if warm else "",
                    ]
                )
    return table
