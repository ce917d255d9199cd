"""The study's published numbers (paper/published_tables.csv) beside the recount from its own
imported data (``study`` cells) and beside portbench's cells of the same kind.

Tables 1, 3 and 8 are function outcome counts, Table 4 failure rates of the top 20 against
all, Tables 5-7 per-function GPU and TPU latency. Where the study's data cannot give a
number (no report for the A100), the row says so instead of showing a zero.
"""

from __future__ import annotations

import csv
import statistics
from collections import Counter, defaultdict
from typing import Any

from ..errors import UsageError
from ..paths import project_root
from .latency import latest_cells
from .load import Cell
from .tables import Table

__all__ = ["published_latency", "published_outcomes", "published_rows", "study_method_latency"]

STUDY_DEVICE = {"gpu": "gpu-t4", "tpu": "tpu-v3", "t4": "gpu-t4", "a100": "gpu-a100"}
LATENCY_TABLES = {"torch": "Table 5", "tensorflow": "Table 6", "jax": "Table 7"}


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


def _counts(cell: Cell) -> Counter[str]:
    return Counter(cell.function_outcomes().values())


def _flavor(accelerator: str) -> str:
    return accelerator.split("-", maxsplit=1)[0]


def published_outcomes(cells: list[Cell]) -> Table:
    """Tables 1, 3 and 8: the study's printed counts or percentages, the recount from its
    data, and every portbench cell of the same flavor."""
    table = Table(
        "published-outcomes",
        "The study's portability tables (1, 3, 8) beside the recount and the reproduction",
        [
            "table",
            "framework",
            "device",
            "printed pass/partial/complete",
            "cell",
            "pass",
            "partial",
            "complete",
            "untested",
            "pass/partial/complete %",
            "note",
        ],
    )
    latest = latest_cells(cells)
    for name in ("Table 8", "Table 1", "Table 3"):
        for row in published_rows(name):
            printed = f"{row['success']}/{row['partial_failure']}/{row['complete_failure']}"
            study_acc = STUDY_DEVICE[row["device"]]
            matching = [
                c
                for c in latest
                if c.framework == row["framework"]
                and (
                    (c.profile == "study" and c.accelerator == study_acc)
                    or (
                        c.profile != "study"
                        and name != "Table 3"
                        and _flavor(c.accelerator) == row["device"]
                    )
                    or (c.profile != "study" and name == "Table 3" and c.accelerator == study_acc)
                )
            ]
            if not matching:
                table.rows.append(
                    [name, row["framework"], row["device"], printed, "none", *[""] * 5, ""]
                )
            for cell in sorted(matching, key=lambda c: (c.profile != "study", c.cell_id)):
                counts = _counts(cell)
                tested = counts["pass"] + counts["partial"] + counts["complete"]
                pct = (
                    "/".join(
                        f"{100 * counts[k] / tested:.0f}%" for k in ("pass", "partial", "complete")
                    )
                    if tested
                    else "-"
                )
                note = ""
                if not tested:
                    note = "no outcome recorded for this device" + (
                        " (the study kept no test report for it)" if cell.profile == "study" else ""
                    )
                elif cell.profile == "study" and name == "Table 8":
                    diff = [
                        counts["pass"] - int(row["success"]),
                        counts["partial"] - int(row["partial_failure"]),
                        counts["complete"] - int(row["complete_failure"]),
                    ]
                    note = "recount - printed: " + "/".join(f"{d:+d}" for d in diff)
                table.rows.append(
                    [
                        name,
                        row["framework"],
                        row["device"],
                        printed,
                        cell.cell_id,
                        counts["pass"],
                        counts["partial"],
                        counts["complete"],
                        counts["untested"],
                        pct,
                        note,
                    ]
                )
    return table


def study_method_latency(
    gpu: Cell, tpu: Cell, use_outcomes: bool
) -> dict[str, tuple[float, float]]:
    """Per function (study test file), the study's own latency: the mean over sub-tests timed
    on both devices of each sub-test's mean over all its timed calls and runs (so a sub-test
    with many calls weighs as much as one with few). With ``use_outcomes``, only sub-tests
    whose report says passed on each side."""

    def means(cell: Cell) -> dict[tuple[str, str], float]:
        out = {}
        for r in cell.records:
            study = (r.get("timing") or {}).get("study")
            if not study:
                continue
            if use_outcomes and r["outcome"] != "pass":
                continue
            out[(r["study_test_file"], r["case_name"])] = float(study["mean_ms"])
        return out

    g, t = means(gpu), means(tpu)
    shared: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for key in set(g) & set(t):
        shared[key[0]].append((g[key], t[key]))
    return {
        test_file: (statistics.fmean(x for x, _ in v), statistics.fmean(y for _, y in v))
        for test_file, v in shared.items()
    }


def _close(value: float, printed: str) -> bool:
    target = float(printed)
    return abs(value - target) <= 0.0015 + 0.001 * target


def _test_file_of(cell: Cell, published_name: str) -> str | None:
    inferred = published_name.removeprefix("UNRECOVERED (inferred ").removesuffix(")")
    functions = (cell.plan or {}).get("functions", [])
    # Rows printed in a latency table first: JAX has two PRNGKey rows, one of them untimed.
    functions = sorted(functions, key=lambda f: not f.get("in_paper_latency_table"))
    for f in functions:
        if published_name in (f.get("paper_label"), f["function"]) or inferred == f["function"]:
            return str(f.get("study_test_file"))
    return None


def published_latency(cells: list[Cell]) -> tuple[Table, dict[str, Any]]:
    """Tables 5-7 recomputed from the study's imported T4 and TPU v3 data, row by row, with
    why a row differs. Returns the table and the match counts per framework."""
    table = Table(
        "published-latency",
        "The study's Tables 5-7 (GPU and TPU latency, ms) recomputed from its own data",
        [
            "table",
            "row",
            "function",
            "printed gpu",
            "recomputed gpu",
            "printed tpu",
            "recomputed tpu",
            "printed tpu/gpu",
            "recomputed tpu/gpu",
            "match",
            "why it differs",
        ],
    )
    study = {(c.framework, c.accelerator): c for c in latest_cells(cells) if c.profile == "study"}
    summary: dict[str, Any] = {}
    for framework, name in LATENCY_TABLES.items():
        gpu, tpu = study.get((framework, "gpu-t4")), study.get((framework, "tpu-v3"))
        rows = published_rows(name)
        if gpu is None or tpu is None:
            summary[framework] = {"table": name, "rows": len(rows), "matched": 0, "imported": False}
            continue
        # JAX's TPU report is a byte copy of its T4 report, and the printed JAX latencies
        # include sub-tests that report marks failed (zeros, ones, vjp): the study computed
        # them from the timing files alone. PyTorch and TensorFlow used the reports.
        use_outcomes = framework != "jax"
        method = study_method_latency(gpu, tpu, use_outcomes)
        other = study_method_latency(gpu, tpu, not use_outcomes)
        matched = 0
        for row in rows:
            test_file = _test_file_of(gpu, row["function"])
            value = method.get(test_file or "")
            match = bool(
                value and _close(value[0], row["gpu_ms"]) and _close(value[1], row["tpu_ms"])
            )
            matched += match
            why = ""
            if not match:
                alt = other.get(test_file or "")
                if test_file is None:
                    why = "no function of the study's list carries this label"
                elif value is None:
                    why = (
                        "no sub-test passed on both devices in the committed reports"
                        if use_outcomes
                        else "no sub-test timed on both devices"
                    )
                elif alt and _close(alt[0], row["gpu_ms"]) and _close(alt[1], row["tpu_ms"]):
                    why = "matches when the report's outcomes are " + (
                        "ignored" if use_outcomes else "applied"
                    )
                else:
                    gpu_ok = _close(value[0], row["gpu_ms"])
                    tpu_ok = _close(value[1], row["tpu_ms"])
                    side = "gpu" if tpu_ok else "tpu" if gpu_ok else "both devices"
                    why = f"the committed runs give another mean on {side}: the printed value came from other data"
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
                    "yes" if match else "no",
                    why,
                ]
            )
        summary[framework] = {
            "table": name,
            "rows": len(rows),
            "matched": matched,
            "imported": True,
        }
    note = "; ".join(
        f"{v['table']} ({k}): {v['matched']}/{v['rows']} rows within rounding"
        + ("" if v["imported"] else " (study data not imported)")
        for k, v in summary.items()
    )
    total = sum(v["rows"] for v in summary.values())
    hit = sum(v["matched"] for v in summary.values())
    note += f"; overall {hit}/{total} ({100 * hit / total:.1f}%)" if total else ""
    return Table(table.name, table.title, table.headers, table.rows, note), summary


def published_strata(cells: list[Cell]) -> Table:
    """Table 4: failure rate of the top 20 and of all functions, printed beside each cell."""
    table = Table(
        "published-strata",
        "The study's Table 4 (failure rate, top 20 and all) beside each cell",
        ["framework", "device", "printed", "cell", "top20 failing", "all failing"],
    )
    for row in published_rows("Table 4"):
        for cell in latest_cells(cells):
            if cell.framework != row["framework"] or _flavor(cell.accelerator) != row["device"]:
                continue
            outcomes = cell.function_outcomes()
            strata = {
                (f["function"], f.get("study_test_file")): str(f.get("stratum"))
                for f in (cell.plan or {}).get("functions", [])
            }
            tested = {k: v for k, v in outcomes.items() if v != "untested"}
            top = [v for k, v in tested.items() if strata.get(k) == "top20"]

            def rate(values: list[str]) -> str:
                failing = sum(1 for v in values if v in ("partial", "complete"))
                return (
                    f"{100 * failing / len(values):.0f}% ({failing}/{len(values)})"
                    if values
                    else "-"
                )

            table.rows.append(
                [
                    row["framework"],
                    row["device"],
                    row["note"],
                    cell.cell_id,
                    rate(top),
                    rate(list(tested.values())),
                ]
            )
    return table
