"""The version report: cells of several releases of one framework (a sweep's, or any cells
whose plan names a release) as portability along the version axis.

Per framework and accelerator, once at least two releases have a cell:
- ``versions-<fw>-<acc>-releases``: functions pass / partial / complete / untested per
  release, with the Python and numpy the cell ran (env.json, else the records'
  provenance); a release a sweep skipped is listed with its sentence;
- ``versions-<fw>-<acc>-transitions``: per function and per case, the step where it became
  portable, broke, was fixed or changed, with what else moved at that step;
- ``versions-<fw>-<acc>-new-failures``: each step's new (function, category, message)
  failures, the list to classify by hand;
- ``versions-<fw>-<acc>-trends``: per step, how many passing cases got slower or faster by
  compare's test, or could not be compared (too few warm samples: a ``--no-timing`` sweep);
- a figure (``versions-<fw>-<acc>.png``): functions by release, coloured by outcome.

The analysis itself is :mod:`portbench.versions.timeline`; this module reads cells into it
and writes tables and the figure.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from portbench_runner.contract import CaseRecord, EvidenceKind, Plan

from ..errors import UsageError
from ..releases.spec import Release, parse_release
from ..versions.timeline import (
    CaseResult,
    ReleaseRun,
    Step,
    function_outcomes_of,
    new_failures,
    portability,
    steps,
    transitions,
    trends,
)
from .load import Cell
from .tables import Table

__all__ = ["release_runs", "release_tables", "version_figures"]

MESSAGE_CHARS = 160


def _release(cell: Cell) -> Release | None:
    """The release a cell's plan (or env) names, of the cell's own framework."""
    # Observed cells only: a predicted or declared cell is another kind of evidence.
    if (
        not isinstance(cell.plan, Plan)
        or cell.plan.is_census
        or cell.plan.evidence_kind is not EvidenceKind.OBSERVED
    ):
        return None
    named = cell.plan.provenance.release if cell.plan.provenance else None
    if named is None and cell.env is not None and cell.env.provenance is not None:
        named = cell.env.provenance.release
    if not named:
        return None
    try:
        release = parse_release(named)
    except UsageError:  # a damaged name is no release: the cell stays out of this report
        return None
    return release if release.framework == cell.framework else None


def _started(cell: Cell) -> str:
    return (cell.env.started_at if cell.env is not None else None) or ""


def _versions(cell: Cell) -> tuple[str | None, str | None]:
    """The Python and numpy the cell ran: env.json's, else its records' provenance."""
    python = cell.env.python_version if cell.env is not None else None
    numpy = cell.env.packages.get("numpy") if cell.env is not None else None
    for record in cell.records:
        if isinstance(record, CaseRecord) and record.provenance is not None:
            python = python or record.provenance.python
            numpy = numpy or record.provenance.numpy
            break
    return (python or None), (numpy or None)


def _case(record: CaseRecord) -> CaseResult:
    message = record.error.message if record.error is not None else record.reason
    first = (message or "").strip().splitlines()
    warm = record.timing.warm if record.timing is not None else None
    return CaseResult(
        function=record.function,
        outcome=record.outcome.value,
        category=record.category.value if record.category is not None else None,
        message=first[0][:MESSAGE_CHARS] if first else None,
        samples_ms=tuple(warm.samples_ms) if warm is not None else (),
    )


def _run(cell: Cell, release: Release) -> ReleaseRun:
    assert isinstance(cell.plan, Plan)
    python, numpy = _versions(cell)
    cases = {r.case: _case(r) for r in cell.records if isinstance(r, CaseRecord)}
    functions = tuple(f.function for f in cell.plan.functions)
    return ReleaseRun(release, python, numpy, functions, cases)


def _sweep_gaps(
    cells: list[Cell], have: set[tuple[str, str, Release]]
) -> list[tuple[str, ReleaseRun]]:
    """Releases a sweep settled without a cell (skipped, or failed before its cell began),
    from the sweep.jsonl beside the cells: (accelerator, run) each."""
    from ..errors import PortbenchError
    from ..sweep.state import LANDED, read_settled, read_sweep_plan

    found = []
    for folder in sorted({c.path.parent for c in cells}):
        if not (folder / "sweep.jsonl").is_file():
            continue
        try:
            plan, settled = read_sweep_plan(folder), read_settled(folder)
        except (PortbenchError, OSError):
            continue
        for release in plan.releases:
            line = settled.get(release.pin)
            if line is None or line.status == LANDED:
                continue
            if (plan.framework, plan.accelerator, release) in have:
                continue
            reason = f"{line.status}: {line.reason or 'no reason recorded'}"
            found.append((plan.accelerator, ReleaseRun(release, None, None, (), {}, reason)))
    return found


def release_runs(cells: list[Cell]) -> dict[tuple[str, str], list[ReleaseRun]]:
    """Per (framework, accelerator), one run per release (the newest complete observed
    cell of each), with the releases a sweep skipped; only groups of at least two releases
    that ran."""
    newest: dict[tuple[str, str, Release], Cell] = {}
    for cell in cells:
        release = _release(cell)
        if release is None or cell.status != "complete":
            continue
        # Two cells of one release (a rerun, another profile pinned to it): the newest.
        key = (cell.framework, cell.accelerator, release)
        if key not in newest or _started(cell) > _started(newest[key]):
            newest[key] = cell
    groups: dict[tuple[str, str], dict[Release, ReleaseRun]] = defaultdict(dict)
    for (framework, accelerator, release), cell in newest.items():
        groups[(framework, accelerator)][release] = _run(cell, release)
    have = set(newest)
    released = list(newest.values())
    for accelerator, run in _sweep_gaps(released, have):
        groups[(run.release.framework, accelerator)].setdefault(run.release, run)
    return {
        key: sorted(runs.values(), key=lambda r: r.release.parsed)
        for key, runs in sorted(groups.items())
        if sum(r.skipped is None for r in runs.values()) >= 2
    }


def _also(step: Step) -> str:
    return "; ".join(step.also_changed) or "-"


def release_tables(cells: list[Cell]) -> list[Table]:
    tables: list[Table] = []
    for (framework, accelerator), runs in release_runs(cells).items():
        prefix = f"versions-{framework}-{accelerator}"
        where = f"{framework} on {accelerator}"
        table = Table(
            f"{prefix}-releases",
            f"Releases, {where}: functions per outcome",
            ["release", "Python", "numpy", "pass", "partial", "complete", "untested", "note"],
        )
        by_release = {r.release: r for r in runs}
        for release, counts in portability(runs):
            run = by_release[release]
            if isinstance(counts, str):
                table.rows.append([release.version, "", "", "", "", "", "", counts])
                continue
            table.rows.append(
                [release.version, run.python or "?", run.numpy or "?",
                 counts["pass"], counts["partial"], counts["complete"], counts["untested"], ""]
            )  # fmt: skip
        tables.append(table)
        moved = Table(
            f"{prefix}-transitions",
            f"Transitions, {where}: where each function or case became portable, broke, was "
            "fixed or changed",
            ["level", "function or case", "step", "change", "before", "after", "also changed"],
            note="A step where Python or numpy moved too is not the framework's alone.",
        )
        for t in transitions(runs):
            moved.rows.append(
                [t.level, t.key, t.step.label, t.kind, t.before, t.after, _also(t.step)]
            )
        tables.append(moved)
        fresh = Table(
            f"{prefix}-new-failures",
            f"New failures, {where}: (function, category, message) a step brought",
            ["step", "function", "category", "message", "also changed"],
            note="Each to classify by hand as a finding or a bug of a case (docs/case-coverage.md).",
        )
        for step in steps(runs):
            for function, category, message in new_failures(step):
                fresh.rows.append(
                    [step.label, function, category or "", message or "", _also(step)]
                )
        tables.append(fresh)
        tables.append(_trend_table(prefix, where, runs))
    return tables


def _trend_table(prefix: str, where: str, runs: list[ReleaseRun]) -> Table:
    table = Table(
        f"{prefix}-trends",
        f"Warm-median trends, {where}: compare's verdict per case passing on both sides",
        ["step", "slower", "faster", "same", "too few samples", "largest changes"],
        note="Slower or faster: the ratio of warm medians beyond 10% and significant "
        "(compare's test); too few samples: a side had fewer warm samples than compare "
        "needs (a --no-timing sweep has none).",
    )
    by_step: dict[str, dict[str, int]] = {}
    notable: dict[str, list[tuple[float, str]]] = defaultdict(list)
    order = [s.label for s in steps(runs)]
    for trend in trends(runs):
        counts = by_step.setdefault(trend.step.label, defaultdict(int))
        counts[trend.verdict] += 1
        if trend.verdict in ("slower", "faster") and trend.ratio is not None:
            notable[trend.step.label].append((trend.ratio, trend.case))
    for label in order:
        counts = by_step.get(label, {})
        extremes = sorted(notable[label], key=lambda x: abs(x[0] - 1.0), reverse=True)[:3]
        table.rows.append(
            [label, counts.get("slower", 0), counts.get("faster", 0), counts.get("same", 0),
             counts.get("too few samples", 0),
             "; ".join(f"{case} x{ratio:.2f}" for ratio, case in extremes)]
        )  # fmt: skip
    return table


#: Function outcome -> colour of its square (the report's palette for these outcomes).
_SQUARE = {"pass": "#2ca02c", "partial": "#ff7f0e", "complete": "#d62728", "untested": "#c7c7c7"}


def version_figures(cells: list[Cell], out: Path) -> list[Path]:
    """Per framework and accelerator: the functions that are not portable in every release,
    by release, coloured by outcome (a release that did not run is a blank column)."""
    from .figures import _plt, _save

    written: list[Path] = []
    for (framework, accelerator), runs in release_runs(cells).items():
        outcomes = [function_outcomes_of(r) if r.skipped is None else {} for r in runs]
        names = sorted({n for o in outcomes for n in o})
        shown = [n for n in names if any(o.get(n, "pass") != "pass" for o in outcomes if o)]
        if not shown:
            continue
        plt = _plt()
        fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(runs), 1.6 + 0.22 * len(shown)))
        for x, found in enumerate(outcomes):
            for y, name in enumerate(shown):
                outcome = found.get(name)
                if outcome is None:
                    continue
                ax.add_patch(
                    plt.Rectangle((x, y), 0.92, 0.86, color=_SQUARE.get(outcome, "#7f7f7f"))
                )
        ax.set_xlim(0, len(runs))
        ax.set_ylim(len(shown), 0)
        ax.set_xticks([x + 0.46 for x in range(len(runs))])
        ax.set_xticklabels(
            [
                f"{r.release.version}\n"
                + (f"Py {r.python}\nnp {r.numpy}" if r.skipped is None else "did not run")
                for r in runs
            ],
            fontsize=7,
        )
        ax.set_yticks([y + 0.43 for y in range(len(shown))])
        ax.set_yticklabels(shown, fontsize=7)
        for outcome, colour in _SQUARE.items():
            ax.bar([0], [0], color=colour, label=outcome)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=4, fontsize=7)
        hidden = len(names) - len(shown)
        ax.set_title(
            f"{framework} on {accelerator} by release; not shown: {hidden} function(s) "
            "portable in every release",
            fontsize=9,
        )
        written += _save(fig, out, f"versions-{framework}-{accelerator}")
    return written
