"""What each page of the site shows, computed once from the store's data: plain values for
the templates (which only lay them out; every text is escaped there)."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from ..store.facts import release_key
from .history import ReleaseView, transitions
from .model import Result, SeriesKey
from .regressions import SeriesReport
from .releases import Known

__all__ = [
    "EvidenceRow",
    "FunctionPage",
    "Matrix",
    "MatrixCell",
    "SeriesTable",
    "function_pages",
    "matrices",
    "slug",
]

OUTCOMES = ("pass", "partial", "complete", "untested", "cpu_too")
SYMBOLS = {"pass": "✓", "fail": "✗", "skip": "○", "error": "!", "flaky": "≈"}
MESSAGE_SHOWN = 400
KIND_ORDER = {"observed": 0, "predicted": 1, "declared": 2}
SUITE_ORDER = {"cases": 0, "census": 1, "study": 2}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(name: str) -> str:
    """A file name for ``name`` (a function or target as stored: never used as a path
    itself): its safe characters, then a hash that keeps two names apart."""
    readable = _UNSAFE.sub("-", name).strip("-.")[:60] or "x"
    return f"{readable}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d") if moment else "—"


def series_order(key: SeriesKey) -> tuple[int, int, str, str, str]:
    return (
        KIND_ORDER.get(key.kind, 9), SUITE_ORDER.get(key.suite, 9), key.variant,
        key.framework, key.target,
    )  # fmt: skip


# -- the home matrix -------------------------------------------------------------------------


@dataclass(frozen=True)
class MatrixCell:
    release: str
    counts: dict[str, int]
    total: int
    pass_share: str
    newest: str
    stale: str | None
    broke: int
    flaky: int
    link: str


@dataclass
class Matrix:
    kind: str
    suite: str
    variant: str = ""
    frameworks: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    cells: dict[tuple[str, str], MatrixCell] = field(default_factory=dict)

    @property
    def title(self) -> str:
        suite = {
            "cases": "portbench's cases",
            "study": "the study's tests (2023)",
            "census": "census: every operator of a framework's database",
        }.get(self.suite, self.suite)
        kind = {
            "observed": "observed on the device",
            "predicted": "predicted without the hardware (not observed)",
            "declared": "declared by a kernel registry or dispatcher (not observed)",
        }.get(self.kind, self.kind)
        variant = f", {self.variant}" if self.variant else ""
        return f"{suite}{variant}: {kind}"


def _stale(key: SeriesKey, release: str, known: dict[str, Known]) -> str | None:
    """Why the series is behind, if a newer release is known (never for the study: its
    cells are a record of 2023, not something to bring up to date)."""
    if key.suite == "study":
        return None
    newest = known.get(key.framework)
    if newest is None or release_key(newest.release) <= release_key(release):
        return None
    return f"{key.framework} {newest.release} is known ({newest.source}); this holds {release}"


def _share(counts: dict[str, int], total: int) -> str:
    """The pass share, or "no outcomes" where no function has one (the study's cells of
    devices it timed without recording outcomes)."""
    if not total or counts.get("untested", 0) == total:
        return "no outcomes"
    return f"{100 * counts.get('pass', 0) / total:.0f}% pass"


def matrices(reports: list[SeriesReport], known: dict[str, Known]) -> list[Matrix]:
    """One matrix per evidence kind and suite: framework x target, each at its newest release."""
    out: dict[tuple[str, str, str], Matrix] = {}
    for report in sorted(reports, key=lambda r: series_order(r.key)):
        key = report.key
        if not report.views:
            continue
        view = report.views[-1]
        matrix = out.setdefault(
            (key.kind, key.suite, key.variant), Matrix(key.kind, key.suite, key.variant)
        )
        if key.framework not in matrix.frameworks:
            matrix.frameworks.append(key.framework)
        if key.target not in matrix.targets:
            matrix.targets.append(key.target)
        counts = view.counts()
        total = sum(counts.values())
        last_pair = report.pairs[-1] if report.pairs else None
        matrix.cells[(key.framework, key.target)] = MatrixCell(
            release=view.release,
            counts={o: counts.get(o, 0) for o in OUTCOMES},
            total=total,
            pass_share=_share(counts, total),
            newest=when(view.newest),
            stale=_stale(key, view.release, known),
            broke=len(last_pair.of("broke")) if last_pair else 0,
            flaky=len(view.flaky),
            link=f"targets/{slug(key.target)}.html#{slug(key.title)}",
        )
    for matrix in out.values():
        matrix.targets.sort()
    return list(out.values())


# -- a function's page -----------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceRow:
    anchor: str
    case: str
    release: str
    outcome: str
    category: str
    message: str
    machine: str
    run: str
    cell: str
    source: str
    date: str


@dataclass(frozen=True)
class CaseRow:
    case: str
    cells: list[tuple[str, str, str, str]]
    """Per release: (css class, symbol, title, anchor) or empty strings where not run."""
    changes: list[str]


@dataclass
class SeriesTable:
    key: SeriesKey
    anchor: str
    releases: list[str]
    function_outcomes: list[str]
    cases: list[CaseRow]
    evidence: list[EvidenceRow]

    @property
    def moves(self) -> list[tuple[str, str]]:
        """(case, move) of every case whose outcome moved between releases."""
        return [(row.case, change) for row in self.cases for change in row.changes]


@dataclass
class FunctionPage:
    function: str
    framework: str
    file: str
    tables: list[SeriesTable] = field(default_factory=list)


def _evidence(result: Result, release: str, anchor: str) -> EvidenceRow:
    run = result.run
    what = " / ".join(x for x in (result.category, result.stage) if x)
    return EvidenceRow(
        anchor=anchor,
        case=result.case,
        release=release,
        outcome=result.outcome,
        category=what,
        message=(result.message or "")[:MESSAGE_SHOWN],
        machine=run.machine or "?",
        run=run.where,
        cell=run.cell_id + (f" ({run.label})" if run.label else ""),
        source=f"{run.source} (ingested on {run.ingested_on}, {when(run.ingested_at)})",
        date=when(run.started_at),
    )


def _table(report: SeriesReport, function: str, views: list[ReleaseView]) -> SeriesTable:
    releases = [v.release for v in views]
    cases = sorted({c for v in views for c, s in v.cases.items() if s.function == function})
    outcomes = [
        "/".join(sorted({o for (f, _), o in v.functions.items() if f == function})) or ""
        for v in views
    ]
    evidence: list[EvidenceRow] = []
    rows: list[CaseRow] = []
    for case in cases:
        cells: list[tuple[str, str, str, str]] = []
        for view in views:
            state = view.cases.get(case)
            if state is None:
                cells.append(("", "", "", ""))
                continue
            first = len(evidence)
            for result in state.results:
                evidence.append(_evidence(result, view.release, f"e{len(evidence)}"))
            outcome = "flaky" if state.flaky else state.outcome
            title = f"{view.release}: {outcome}" + (
                f" — {state.newest.message[:160]}" if state.newest.message else ""
            )
            cells.append((outcome, SYMBOLS.get(outcome, "?"), title, f"e{first}"))
        changes = [
            f"{t.kind} in {t.after} (was {t.outcome_before} in {t.before})"
            for t in transitions(case, views)
        ]
        rows.append(CaseRow(case, cells, changes))
    return SeriesTable(report.key, slug(report.key.title), releases, outcomes, rows, evidence)


def function_pages(reports: list[SeriesReport]) -> list[FunctionPage]:
    """One page per function name of a framework, every series it appears in."""
    pages: dict[tuple[str, str], FunctionPage] = {}
    by_function: dict[tuple[str, str], list[SeriesReport]] = defaultdict(list)
    for report in sorted(reports, key=lambda r: series_order(r.key)):
        names = {s.function for v in report.views for s in v.cases.values()}
        names |= {f for v in report.views for (f, _) in v.functions}
        for name in names:
            by_function[(report.key.framework, name)].append(report)
    for (framework, name), found in sorted(by_function.items()):
        page = pages.setdefault(
            (framework, name),
            FunctionPage(name, framework, f"functions/{slug(framework + ':' + name)}.html"),
        )
        for report in found:
            page.tables.append(_table(report, name, report.views))
    return list(pages.values())
