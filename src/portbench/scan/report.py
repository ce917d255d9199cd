"""The scan's report as data: summary figures, APIs worst first, uses; the JSON output.

Every renderer (terminal, SARIF, HTML) reads this one document, so the figures agree.
"""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, TypedDict

from .. import __version__
from .engine import ScanResult
from .findings import Finding
from .verdict import STATUSES, Verdict, severity

__all__ = ["REPORT_SCHEMA", "ApiRow", "ScanReport", "build_report"]

REPORT_SCHEMA = 1
#: Locations listed per API in the JSON and HTML outputs.
LOCATIONS_KEPT = 20
#: Examples of unparsed files and skipped paths in the summary.
EXAMPLES_KEPT = 5


class _UseJson(TypedDict):
    """One entry of the JSON output's ``uses``: a use and its status per target."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    cell: int | None
    framework: str
    api: str
    canonical: str | None
    kind: str
    route: str
    called: bool
    status: dict[str, str]
    suppressed: list[str]
    baselined: list[str]


@dataclass
class ApiRow:
    """One API the project uses: its uses, and a verdict per target."""

    framework: str
    api: str
    canonical: str | None
    kind: str
    uses: int
    verdicts: dict[str, Verdict]
    counted: dict[str, bool]
    """Per target: whether any of its findings counts (not suppressed, not baselined)."""
    locations: list[str] = field(default_factory=list)

    def worst(self, counted_only: bool = False) -> str:
        statuses = [
            v.status
            for target, v in self.verdicts.items()
            if not counted_only or self.counted.get(target, True)
        ]
        return min(statuses, key=severity) if statuses else "works"


@dataclass
class ScanReport:
    """Everything a renderer shows."""

    project: str
    summary: dict[str, Any]
    targets: list[str]
    releases: dict[str, dict[str, str | None]]
    apis: list[ApiRow]
    findings: list[Finding]
    result: ScanResult

    def status_counts(self) -> dict[str, Counter[str]]:
        """Per target: counted findings per status."""
        counts: dict[str, Counter[str]] = {t: Counter() for t in self.targets}
        for finding in self.findings:
            if finding.counts:
                counts[finding.target][finding.verdict.status] += 1
        return counts

    def to_json(self) -> dict[str, object]:
        uses: dict[tuple[str, int, int, str], _UseJson] = {}
        for finding in self.findings:
            use, where = finding.use, finding.location
            key = (use.file, use.line, use.col, use.api)
            row = uses.get(key)
            if row is None:
                row = uses[key] = {
                    "file": use.file,
                    "line": where.line,
                    "col": where.col + 1,
                    "end_line": where.end_line,
                    "end_col": where.end_col + 1,
                    "cell": where.cell,
                    "framework": use.framework,
                    "api": use.api,
                    "canonical": use.canonical,
                    "kind": use.kind,
                    "route": use.route,
                    "called": use.called,
                    "status": {},
                    "suppressed": [],
                    "baselined": [],
                }
            row["status"][finding.target] = finding.verdict.status
            if finding.suppressed:
                row["suppressed"].append(finding.target)
            if finding.baselined:
                row["baselined"].append(finding.target)
        return {
            "schema": REPORT_SCHEMA,
            "kind": "scan",
            "portbench": __version__,
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "project": self.project,
            "summary": self.summary,
            "targets": self.targets,
            "releases": self.releases,
            "apis": [
                {
                    "framework": row.framework,
                    "api": row.api,
                    "canonical": row.canonical,
                    "kind": row.kind,
                    "uses": row.uses,
                    "worst": row.worst(),
                    "verdicts": {t: _verdict_json(v) for t, v in row.verdicts.items()},
                    "locations": row.locations,
                }
                for row in self.apis
            ],
            "uses": list(uses.values()),
        }


def _verdict_json(verdict: Verdict) -> dict[str, object]:
    return {
        "status": verdict.status,
        "kind": verdict.kind.value if verdict.kind else None,
        "level": verdict.level,
        "release": verdict.release,
        "detail": verdict.detail,
        "items": [{"case": c, "category": k, "message": m} for c, k, m in verdict.items],
        "per_kind": [{"kind": k, "status": s, "detail": d} for k, s, d in verdict.per_kind],
        "sources": list(verdict.sources),
        "hint": verdict.hint,
    }


def build_report(
    project: str,
    result: ScanResult,
    findings: list[Finding],
    targets: list[str],
    releases: dict[str, dict[str, str | None]],
    extra: dict[str, Any],
) -> ScanReport:
    """Aggregate findings per API (worst first) and count the summary's figures."""
    rows: dict[tuple[str, str], ApiRow] = {}
    spellings: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    seen_use: set[int] = set()
    for finding in findings:
        use = finding.use
        key = (use.framework, use.canonical or use.api)
        row = rows.get(key)
        if row is None:
            row = rows[key] = ApiRow(use.framework, use.api, use.canonical, use.kind, 0, {}, {})
        row.verdicts[finding.target] = finding.verdict
        row.counted[finding.target] = row.counted.get(finding.target, False) or finding.counts
        if id(use) not in seen_use:
            seen_use.add(id(use))
            row.uses += 1
            spellings[key][use.api] += 1
            if len(row.locations) < LOCATIONS_KEPT:
                row.locations.append(finding.location.text())
    for key, row in rows.items():
        row.api = spellings[key].most_common(1)[0][0]
    apis = sorted(
        rows.values(),
        key=lambda r: (
            severity(r.worst()),
            sum(severity(v.status) for v in r.verdicts.values()),
            -r.uses,
            r.api,
        ),
    )
    uses = result.uses
    resolved = [u for u in uses if u.canonical is not None]
    evidenced = {id(f.use) for f in findings if f.verdict.status not in ("untested", "unknown")}
    discovery = result.discovery
    summary: dict[str, Any] = {
        "files": len(discovery.files),
        "python_files": sum(1 for f in discovery.files if f.kind == "python"),
        "notebooks": sum(1 for f in discovery.files if f.kind == "notebook"),
        "bytes": discovery.bytes,
        "skipped": dict(sorted(discovery.skipped.items())),
        "skipped_examples": {k: v[:EXAMPLES_KEPT] for k, v in sorted(discovery.examples.items())},
        "unparsed": len(result.unparsed),
        "unparsed_examples": [f"{rel}: {why}" for rel, why in result.unparsed[:EXAMPLES_KEPT]],
        "notebook_cells_skipped": sum(f.skipped_cells for f in result.files),
        "uses": len(uses),
        "resolved": len(resolved),
        "unknown": len(uses) - len(resolved),
        "mapped_to_evidence": len(evidenced),
        "apis": len(rows),
        "unresolved_method_calls": sum(result.unresolved_methods.values()),
        "unresolved_method_names": dict(result.unresolved_methods.most_common(20)),
        "guessed": sum(1 for u in uses if u.route == "guess"),
        "routes": dict(Counter(u.route for u in uses).most_common()),
        "frameworks": dict(Counter(u.framework for u in uses).most_common()),
        "resolver": dict(sorted(result.stats.items())),
        "statuses": _per_target(findings, targets),
        "suppressed": sum(1 for f in findings if f.suppressed),
        "baselined": sum(1 for f in findings if f.baselined),
        **extra,
    }
    return ScanReport(project, summary, targets, releases, apis, findings, result)


def _per_target(findings: list[Finding], targets: list[str]) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter[str]] = {t: Counter() for t in targets}
    for finding in findings:
        if finding.counts:
            counts[finding.target][finding.verdict.status] += 1
    return {t: {s: counts[t][s] for s in STATUSES} for t in targets}
