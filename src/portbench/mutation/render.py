"""A mutation summary as tables: Markdown (the run's ``kill-rates.md``, docs/mutation.md),
JSON (``kill-rates.json``) and rich tables for the terminal."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from portbench_runner.mutation import MUTANT_KINDS

from .summary import ALL, EVERY, EVERY_BUT_DTYPE, KillCount, MutationSummary, percent

__all__ = ["kind_table", "markdown", "report_table", "summary_json"]

SURVIVORS_SHOWN = 200


def _kinds(summary: MutationSummary, framework: str) -> list[str]:
    return [k for k in MUTANT_KINDS if (framework, k) in summary.by_kind]


def _row(count: KillCount) -> list[str]:
    return [
        str(count.killed),
        str(count.survived),
        percent(count.rate),
        str(count.apart),
        str(count.na),
    ]


_KIND_HEAD = ["framework", "mutant", "killed", "survived", "kill rate", "apart", "n/a"]


def kind_table(summary: MutationSummary) -> Table:
    """Kill rate per framework and mutant kind, for the terminal."""
    table = Table(title="kill rate per mutant kind")
    for name in _KIND_HEAD:
        table.add_column(name, justify="left" if name in ("framework", "mutant") else "right")
    for fw in summary.frameworks:
        for kind in _kinds(summary, fw):
            table.add_row(fw, kind, *_row(summary.by_kind[(fw, kind)]))
    return table


def _md(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    lines.extend("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows)
    return lines


def _baselines(summary: MutationSummary, fw: str) -> str:
    counts = {o: n for (f, o), n in summary.baselines.items() if f == fw}
    return ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))


def markdown(summary: MutationSummary, command: str = "") -> str:
    """Every table of the summary as Markdown."""
    out: list[str] = []
    if command:
        out += [f"Command: `{command}`", ""]
    out += ["Cases run unmutated (baselines):", ""]
    out += [f"- {fw}: {_baselines(summary, fw)}" for fw in summary.frameworks]
    out += [
        "",
        "Kill rate per mutant kind (apart: cases whose measured call is stateful or whose",
        "result is unused; n/a: the mutant changed nothing, or (state) the call is neither):",
        "",
    ]
    rows = [
        [fw, kind, *_row(summary.by_kind[(fw, kind)])]
        for fw in summary.frameworks
        for kind in _kinds(summary, fw)
    ]
    out += _md(_KIND_HEAD, rows)
    out += ["", "Value-returning passing cases (those output mutants were tried on) that kill"]
    out += ["every value mutant tried on them, and every one but dtype:", ""]
    rows = []
    for fw in summary.frameworks:
        total = summary.value_cases[(fw, ALL)]
        row = [fw, str(total)]
        for what in (EVERY, EVERY_BUT_DTYPE):
            n = summary.value_cases[(fw, what)]
            row.append(f"{n} ({percent(n / total if total else None)})")
        rows.append(row)
    out += _md(["framework", "cases", "kill every value mutant", "every but dtype"], rows)
    out += ["", "Cases counted apart:", ""]
    out += _md(
        ["framework", "reason", "cases"],
        [[fw, reason, str(n)] for (fw, reason), n in sorted(summary.apart.items())],
    )
    out += ["", "Kill rate per function (killed/tried per mutant kind):", ""]
    fns = sorted({(fw, fn) for fw, fn, _ in summary.by_function})
    kinds = [k for k in MUTANT_KINDS if any(k == key[2] for key in summary.by_function)]
    rows = []
    for fw, fn in fns:
        cells = []
        for kind in kinds:
            count = summary.by_function.get((fw, fn, kind))
            cells.append(
                "" if count is None or not count.tried else f"{count.killed}/{count.tried}"
            )
        rows.append([fw, fn, *cells])
    out += _md(["framework", "function", *kinds], rows)
    out += ["", f"Survivors ({len(summary.survivors)}):", ""]
    shown = summary.survivors[:SURVIVORS_SHOWN]
    out += _md(["case", "mutant", "note"], [[s.case, s.kind, s.note] for s in shown])
    if len(summary.survivors) > len(shown):
        out += ["", f"... and {len(summary.survivors) - len(shown)} more (kill-rates.json)"]
    return "\n".join(out) + "\n"


def summary_json(summary: MutationSummary) -> dict[str, Any]:
    """Every count of the summary, for tools."""

    def count(c: KillCount) -> dict[str, Any]:
        return {"killed": c.killed, "survived": c.survived, "apart": c.apart, "na": c.na}

    return {
        "by_kind": [
            {"framework": fw, "kind": k, **count(c)}
            for (fw, k), c in sorted(summary.by_kind.items())
        ],
        "by_function": [
            {"framework": fw, "function": fn, "kind": k, **count(c)}
            for (fw, fn, k), c in sorted(summary.by_function.items())
        ],
        "survivors": [
            {"framework": s.framework, "case": s.case, "kind": s.kind, "note": s.note}
            for s in summary.survivors
        ],
        "apart": [
            {"framework": fw, "reason": r, "cases": n}
            for (fw, r), n in sorted(summary.apart.items())
        ],
        "baselines": [
            {"framework": fw, "outcome": o, "cases": n}
            for (fw, o), n in sorted(summary.baselines.items())
        ],
        "value_cases": [
            {"framework": fw, "what": w, "cases": n}
            for (fw, w), n in sorted(summary.value_cases.items())
        ],
    }


def report_table(summary: MutationSummary) -> Any:
    """The kill rate per framework and mutant kind as a table of ``portbench report``."""
    from ..report.tables import Table

    rows = [
        [fw, kind, *_row(summary.by_kind[(fw, kind)])]
        for fw in summary.frameworks
        for kind in _kinds(summary, fw)
    ]
    note = (
        f"{len(summary.survivors)} survivors, listed with their cases in each mutation run's "
        "kill-rates.md (docs/mutation.md)"
    )
    return Table("mutation", "Mutation kill rates (portbench mutate)", _KIND_HEAD, rows, note)
