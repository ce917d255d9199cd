"""Fault cost: from a worker's crash to the next case starting (restart + framework import)."""

from __future__ import annotations

import importlib.util

from _common import Row, epoch, run_cell

from portbench.results import Category

BODY = """    import ctypes
    if ctx.case_id.endswith("c0001"):
        ctx.measure(ctypes.string_at, 0)
    ctx.measure(abs, -1, warm=False)"""


def run() -> list[Row]:
    rows = []
    for framework in ("python", "jax", "torch", "tensorflow"):
        if framework != "python" and importlib.util.find_spec(framework) is None:
            continue
        by_name = {r.case_name: r for r in run_cell(3, BODY, framework).records}
        crash, after = by_name["c0001"], by_name["c0002"]
        assert crash.category is Category.CRASH, crash
        gap = epoch(after.started_at) - (epoch(crash.started_at) + crash.duration_s)
        rows.append(Row("fault-cost", f"{framework}: crash to next case", gap, "s"))
    return rows
