"""Census tables: per cell, operators x dtypes supported, partly or not at all; what the
database declares beside what was observed; differences between census cells.

A case's support (one operator, one dtype, on one device):

- ``yes``: every sample the database made ran, and every checked one agreed;
- ``partly``: some samples ran and agreed, others failed (or disagreed);
- ``no``: no sample ran and agreed (a crash or a timeout included);
- ``no-sample``: the database makes no sample for the dtype (skip: nothing to say);
- ``error``: our harness broke (never counted against the framework).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from portbench_runner.contract import Plan

from ..results import AnyRecord, CaseRecord, Outcome
from .load import Cell
from .tables import Table

__all__ = [
    "SUPPORT",
    "CensusCase",
    "census_cases",
    "census_cells",
    "census_differences",
    "census_findings",
    "census_support",
    "census_tables",
    "is_census",
]

SUPPORT = ("yes", "partly", "no", "no-sample", "error")
#: The device types whose declared dtypes apply, per accelerator flavor: the first one the
#: database names. torch's declares rocm, xpu and mps (inheriting CUDA's or the CPU's dtypes
#: where an entry names none); TensorFlow's ROCm build registers its kernels as GPU ones,
#: which its database reads as cuda.
DEVICE_TYPES = {
    "cpu": ("cpu",),
    "cuda": ("cuda",),
    "rocm": ("rocm", "cuda"),
    "xpu": ("xpu",),
    "mps": ("mps",),
}


@dataclass(frozen=True)
class CensusCase:
    operator: str
    dtype: str
    support: str
    declared: bool | None
    """Whether the database declares the dtype for this device type; None if unknown."""
    samples: int
    ok: int
    """Samples that ran and agreed (or ran, where there was nothing to check against)."""
    category: str | None
    message: str


def is_census(cell: Cell) -> bool:
    return cell.census is not None


def census_cells(cells: list[Cell]) -> list[Cell]:
    return [cell for cell in cells if is_census(cell)]


def _support(record: AnyRecord) -> tuple[str, int, int]:
    census = record.census if isinstance(record, CaseRecord) else None
    samples = (census.samples or 0) if census is not None else 0
    ok = ((census.agreed or 0) + (census.unchecked or 0)) if census is not None else 0
    outcome = record.outcome
    if outcome is Outcome.PASS:
        return "yes", samples, ok
    if outcome is Outcome.SKIP:
        return "no-sample", samples, ok
    if outcome is Outcome.ERROR:
        return "error", samples, ok
    return ("partly" if ok else "no"), samples, ok


def census_cases(cell: Cell) -> list[CensusCase]:
    """One row per operator x dtype (the cases of one pair merged: JAX has several harnesses
    per primitive and dtype); a planned case with no record is left out (an unfinished cell
    says nothing of it)."""
    merged: dict[tuple[str, str], CensusCase] = {}
    for case in _recorded_cases(cell):
        key = (case.operator, case.dtype)
        merged[key] = _merge(merged[key], case) if key in merged else case
    return list(merged.values())


def _merge(a: CensusCase, b: CensusCase) -> CensusCase:
    tested = {a.support, b.support} & {"yes", "partly", "no"}
    if not tested:
        support = a.support if a.support == b.support else "error"
    elif tested == {"yes"}:
        support = "yes"
    elif tested == {"no"}:
        support = "no"
    else:
        support = "partly"
    declared = None if a.declared is None or b.declared is None else a.declared or b.declared
    first = a if a.support not in ("yes", "no-sample") else b
    return CensusCase(
        a.operator,
        a.dtype,
        support,
        declared,
        a.samples + b.samples,
        a.ok + b.ok,
        first.category,
        first.message,
    )


def _recorded_cases(cell: Cell) -> list[CensusCase]:
    plan = cell.plan
    if not isinstance(plan, Plan):
        return []
    device_types = DEVICE_TYPES.get(plan.accelerator.flavor, ())
    by_case = {r.case: r for r in cell.records}
    rows = []
    for function in plan.functions:
        census = function.census
        declared_types = census.declared if census is not None else {}
        device_type = next((t for t in device_types if t in declared_types), None)
        row = census.row if census is not None else None
        operator = (row or function.function).removeprefix("census:")
        for case in function.cases:
            dtype = case.dtype or case.name
            declared = dtype in declared_types[device_type] if device_type else None
            record = by_case.get(case.id)
            if record is None:
                continue
            support, samples, ok = _support(record)
            category = record.category.value if record.category is not None else None
            rows.append(
                CensusCase(
                    operator,
                    dtype,
                    support,
                    declared,
                    samples,
                    ok,
                    category,
                    _first_line(record.message.strip()),
                )
            )
    return rows


def _first_line(message: str) -> str:
    """An error as one short line. A comparison's first line ("Tensor-likes are not
    close!") says only that it failed: the two lines after it (mismatched elements, the
    greatest difference) say by how much, which is what tells a tolerance from a wrong
    result."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0].endswith(("are not close!", "are not equal!")):
        return "; ".join(lines[:3])[:240]
    return lines[0][:160]


def _dtypes(cell: Cell) -> list[str]:
    return list(cell.census.dtypes) if cell.census is not None else []


def census_support(cell: Cell) -> Table:
    """The heat map's data: one row per operator, one column per dtype."""
    dtypes = _dtypes(cell)
    table = Table(
        f"census-support-{cell.path.name}",
        f"Census {cell.cell_id}: support per operator and dtype",
        ["operator", *dtypes],
        note="yes: every sample ran and agreed; partly; no; no-sample: the database makes "
        "none; * after a value: the database does not declare that dtype for this device",
    )
    rows: dict[str, dict[str, str]] = {}
    for case in census_cases(cell):
        mark = "" if case.declared is not False else "*"
        rows.setdefault(case.operator, {})[case.dtype] = case.support + mark
    for operator, values in rows.items():
        table.rows.append([operator, *(values.get(d, "") for d in dtypes)])
    return table


def census_summary_table(cells: list[Cell]) -> Table:
    """Per census cell: operators and operator x dtype pairs by support, and wall time."""
    table = Table(
        "census-summary",
        "Census: operators and operator x dtype pairs per cell",
        [
            "cell",
            "database",
            "status",
            "operators",
            "ops all yes",
            "ops some yes",
            "ops none",
            "pairs",
            *SUPPORT,
            "declared, not working",
            "working, undeclared",
            "wall s",
        ],
    )
    for cell in cells:
        cases = census_cases(cell)
        counts = Counter(c.support for c in cases)
        by_op: dict[str, list[str]] = {}
        for case in cases:
            by_op.setdefault(case.operator, []).append(case.support)
        tested = {op: [s for s in v if s in ("yes", "partly", "no")] for op, v in by_op.items()}
        all_yes = sum(1 for v in tested.values() if v and all(s == "yes" for s in v))
        some = sum(1 for v in tested.values() if any(s in ("yes", "partly") for s in v))
        none = sum(1 for v in tested.values() if v and not any(s in ("yes", "partly") for s in v))
        declared_failing, undeclared_working = _finding_counts(cases)
        census = cell.census
        database = (
            f"{_short(census.database)} {census.version}" if census is not None else _short(None)
        )
        table.rows.append(
            [
                cell.cell_id,
                database,
                cell.status,
                len(by_op),
                all_yes,
                some - all_yes,
                none,
                len(cases),
                *(counts[s] for s in SUPPORT),
                declared_failing,
                undeclared_working,
                f"{_wall_s(cell):.0f}",
            ]
        )
    return table


def _short(database: str | None) -> str:
    """``torch.testing._internal.common_methods_invocations.op_db`` -> ``op_db``."""
    return str(database or "?").rsplit(".", 1)[-1]


def _wall_s(cell: Cell) -> float:
    return sum(r.duration_s for r in cell.records if isinstance(r, CaseRecord))


def _finding_counts(cases: list[CensusCase]) -> tuple[int, int]:
    failing = sum(1 for c in cases if c.declared and c.support in ("no", "partly"))
    working = sum(1 for c in cases if c.declared is False and c.support in ("yes", "partly"))
    return failing, working


def census_findings(cell: Cell) -> Table:
    """Declared but not (fully) working, and working but not declared: the findings."""
    table = Table(
        f"census-findings-{cell.path.name}",
        f"Census {cell.cell_id}: declared dtypes beside observed support",
        ["finding", "operator", "dtype", "support", "samples ok", "category", "first error"],
    )
    for case in census_cases(cell):
        if case.declared and case.support in ("no", "partly"):
            finding = "declared, not working" if case.support == "no" else "declared, partly"
        elif case.declared is False and case.support in ("yes", "partly"):
            finding = "working, undeclared" if case.support == "yes" else "partly, undeclared"
        else:
            continue
        table.rows.append(
            [
                finding,
                case.operator,
                case.dtype,
                case.support,
                f"{case.ok}/{case.samples}",
                case.category or "",
                case.message,
            ]
        )
    table.rows.sort(key=lambda row: (row[0], row[1], row[2]))
    return table


#: Support ranked for "better"/"worse" between two cells (no-sample and error say nothing).
_RANK = {"yes": 2, "partly": 1, "no": 0}


def _version_key(cell: Cell) -> tuple[tuple[int, ...], str, str]:
    """Cells of a framework in the order of their database's version (oldest first), then
    by name: "better in the last cell" then reads as "better in the newer version"."""
    version = cell.census.version if cell.census is not None else ""
    numbers = tuple(int(n) for n in re.findall(r"\d+", version.split("+", maxsplit=1)[0])[:4])
    return numbers, version, cell.name


def _cell_label(cell: Cell) -> str:
    """``torch/cpu/paper`` of op_db 1.12.0 -> ``cpu/paper (1.12.0)``: the framework is the
    table's, the version is what the profile stands for."""
    version = cell.census.version if cell.census is not None else None
    name = cell.name.removeprefix(f"{cell.framework}/")
    return f"{name} ({version})" if version else name


def _first_error(cases: list[tuple[str, CensusCase | None]]) -> str:
    """The error of the cell where the pair works least (the first such cell): for a pair
    that went from partly to no, why it fails now, not why one sample failed before."""
    failing = [
        (label, case)
        for label, case in cases
        if case is not None and case.support in ("no", "partly")
    ]
    if not failing:
        return ""
    label, case = min(failing, key=lambda item: _RANK[item[1].support])
    category = f"{case.category}: " if case.category else ""
    return f"{label}: {category}{case.message}".strip()


def _framework_differences(
    framework: str, group: list[Cell], cases_of: list[list[CensusCase]]
) -> tuple[Table, dict[str, int]]:
    """One framework's differing pairs (a column per cell, ``group`` oldest version first)
    and its headline counts."""
    labels = [_cell_label(cell) for cell in group]
    table = Table(
        f"census-differences-{framework}",
        f"Census {framework}: operator x dtype pairs whose support differs between cells",
        ["operator", "dtype", *labels, "first error"],
        note="support: yes, partly, no (tested); no-sample (the database makes none); "
        "error (our harness); '-' the cell's database has no such pair. Cells oldest "
        "version first; first error: of the cell where the pair works least (the first such)",
    )
    by_cell = [{(c.operator, c.dtype): c for c in cases} for cases in cases_of]
    pairs = sorted(set().union(*(set(cases) for cases in by_cell)))
    counts = dict.fromkeys(("in every cell", "differing", "better in last", "worse in last"), 0)
    counts |= {"only in first": 0, "only in last": 0}
    for pair in pairs:
        cases = [cases.get(pair) for cases in by_cell]
        present = [case for case in cases if case is not None]
        if cases[0] is not None and all(case is None for case in cases[1:]):
            counts["only in first"] += 1
        if cases[-1] is not None and all(case is None for case in cases[:-1]):
            counts["only in last"] += 1
        if len(present) == len(cases):
            counts["in every cell"] += 1
        tested = {case.support for case in present if case.support in _RANK}
        if len(tested) < 2:
            continue
        counts["differing"] += 1
        first, last = cases[0], cases[-1]
        if first is not None and last is not None and {first.support, last.support} <= set(_RANK):
            change = _RANK[last.support] - _RANK[first.support]
            counts["better in last"] += change > 0
            counts["worse in last"] += change < 0
        table.rows.append(
            [
                pair[0],
                pair[1],
                *(case.support if case is not None else "-" for case in cases),
                _first_error(list(zip(labels, cases))),
            ]
        )
    return table, counts


def _support_counts(cases: list[CensusCase]) -> str:
    """``3 yes, 1 no`` over an operator's dtypes in one cell (supports that occur only)."""
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.support] = counts.get(case.support, 0) + 1
    order = ("yes", "partly", "no", "no-sample", "error")
    return ", ".join(f"{counts[s]} {s}" for s in order if s in counts)


def _operators_apart(framework: str, group: list[Cell], cases_of: list[list[CensusCase]]) -> Table:
    """Operators that some cells' databases list and others do not (a new operator, one
    dropped or renamed): which cells list it, its dtypes, and how it fares where listed."""
    labels = [_cell_label(cell) for cell in group]
    table = Table(
        f"census-operators-apart-{framework}",
        f"Census {framework}: operators that only some cells' databases list",
        ["operator", "listed in", "not in", "dtypes", "support where listed", "renamed?"],
        note="a database entry gained, dropped or renamed between versions (or devices): "
        "its pairs are the 'only in' counts of census-differences; cells oldest version "
        "first; support counts the operator's dtypes in each cell that lists it; renamed?: "
        "an operator apart whose name differs only by leading underscores (_masked.amax, "
        "masked.amax), the likely same entry under a new name",
    )
    by_cell: list[dict[str, list[CensusCase]]] = []
    for cases in cases_of:
        operators: dict[str, list[CensusCase]] = {}
        for case in cases:
            operators.setdefault(case.operator, []).append(case)
        by_cell.append(operators)
    apart = sorted(op for op in set().union(*by_cell) if not all(op in ops for ops in by_cell))
    # Private entries made public (``_masked.*`` -> ``masked.*``) keep their name otherwise.
    plain: dict[str, list[str]] = {}
    for operator in apart:
        plain.setdefault(_without_underscores(operator), []).append(operator)
    for operator in apart:
        listed = [i for i, operators in enumerate(by_cell) if operator in operators]
        others = [o for o in plain[_without_underscores(operator)] if o != operator]
        dtypes = sorted({c.dtype for i in listed for c in by_cell[i][operator]})
        table.rows.append(
            [
                operator,
                "; ".join(labels[i] for i in listed),
                "; ".join(label for i, label in enumerate(labels) if i not in listed),
                " ".join(dtypes),
                "; ".join(f"{labels[i]}: {_support_counts(by_cell[i][operator])}" for i in listed),
                " ".join(others),
            ]
        )
    return table


def _without_underscores(operator: str) -> str:
    return ".".join(part.lstrip("_") for part in operator.split("."))


def census_differences(cells: list[Cell]) -> list[Table]:
    """Operator x dtype pairs whose support differs between census cells of one framework
    (devices, profiles, versions): the headline counts per framework
    (``census-differences``), then per framework one row per differing pair with a column
    per cell and the first error (``census-differences-<framework>``) and the operators only
    some cells list (``census-operators-apart-<framework>``)."""
    by_framework: dict[str, list[Cell]] = {}
    for cell in cells:
        by_framework.setdefault(cell.framework, []).append(cell)
    headline = Table(
        "census-differences",
        "Census: operator x dtype pairs whose support differs between cells of a framework",
        [
            "framework",
            "cells (oldest version first)",
            "pairs",
            "in every cell",
            "differing",
            "better in last",
            "worse in last",
            "only in first",
            "only in last",
        ],
        note="differing: tested (yes, partly, no) in two cells or more, with two supports "
        "or more; better/worse: the last cell's support beside the first's; only in: pairs "
        "one database lists and the others do not (new operators, dtypes or harnesses)",
    )
    details = []
    for framework, group in sorted(by_framework.items()):
        if len(group) < 2:
            continue
        # Oldest version first, each cell's records read once for both tables.
        group = sorted(group, key=_version_key)
        cases_of = [census_cases(cell) for cell in group]
        table, counts = _framework_differences(framework, group, cases_of)
        apart = _operators_apart(framework, group, cases_of)
        pairs = len({(c.operator, c.dtype) for cases in cases_of for c in cases})
        headline.rows.append(
            [
                framework,
                "; ".join(table.headers[2:-1]),
                pairs,
                *counts.values(),
            ]
        )
        details += [table, apart]
    return [headline, *details]


def census_tables(cells: list[Cell]) -> list[Table]:
    """Every census table for the census cells among ``cells`` (none: an empty list)."""
    chosen = census_cells(cells)
    if not chosen:
        return []
    tables = [census_summary_table(chosen), *census_differences(chosen)]
    for cell in chosen:
        tables += [census_findings(cell), census_support(cell)]
    return tables
