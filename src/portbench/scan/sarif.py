"""SARIF 2.1.0: the findings where code-scanning tools show them, at the line.

One rule per status (a failing API is an error, a fallback a warning, untested and unknown
notes); one result per use and status, naming the targets it holds for. A result silenced
by a comment carries an in-source suppression; with a baseline, each result says whether it
is new or unchanged. Files that did not parse are notifications of the run.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from .. import __version__
from .findings import Finding, Location
from .report import ScanReport
from .verdict import severity

__all__ = ["RULES", "SARIF_SCHEMA_URI", "sarif_document"]

SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
#: status -> (rule id, name, level, description)
RULES = {
    "fails": ("PB001", "fails-on-target", "error", "The API fails on the target in evidence"),
    "fallback": (
        "PB002",
        "works-with-fallback",
        "warning",
        "The API works on the target with part of its work on the host",
    ),
    "untested": (
        "PB003",
        "untested-on-target",
        "note",
        "The API is known but no evidence says how it fares on the target",
    ),
    "unknown": (
        "PB004",
        "unknown-api",
        "note",
        "The use does not resolve to an API of the framework's release",
    ),
}
ROOT_ID = "PROJECTROOT"


def _region(location: Location) -> dict[str, int]:
    if location.cell is not None:
        line = location.file_line or 1
        return {"startLine": line}
    return {
        "startLine": location.line,
        "startColumn": location.col + 1,
        "endLine": max(location.end_line, location.line),
        "endColumn": max(location.end_col + 1, location.col + 2)
        if location.end_line == location.line
        else location.end_col + 1,
    }


def _message(findings: list[Finding]) -> str:
    first = findings[0]
    verdict = first.verdict
    targets = ", ".join(f.target for f in findings)
    where = (
        f" (cell {first.location.cell}, line {first.location.line})"
        if first.location.cell is not None
        else ""
    )
    kind = f", {verdict.kind.value}" if verdict.kind else ""
    release = f" {first.use.framework} {verdict.release}" if verdict.release else ""
    text = f"{first.use.api} {verdict.status} on {targets}{where} ({release.strip()}{kind}): {verdict.detail}"
    if verdict.items:
        case, category, message = verdict.items[0]
        text += f". First: {case} [{category}] {message}".rstrip()
    if verdict.hint:
        text += f". {verdict.hint}"
    return text


def sarif_document(
    report: ScanReport, root: Path, min_status: str = "unknown"
) -> dict[str, object]:
    """The report as one SARIF log; statuses better than ``min_status`` are left out."""
    rule_ids = list(RULES)
    groups: dict[tuple[int, str], list[Finding]] = defaultdict(list)
    order: list[tuple[int, str]] = []
    for finding in report.findings:
        status = finding.verdict.status
        if status == "works" or severity(status) > severity(min_status):
            continue
        key = (id(finding.use), status)
        if key not in groups:
            order.append(key)
        groups[key].append(finding)
    results = []
    baseline_given = bool(report.summary.get("baseline"))
    for key in order:
        findings = groups[key]
        first = findings[0]
        status = key[1]
        rule_id, _name, level, _text = RULES[status]
        result: dict[str, object] = {
            "ruleId": rule_id,
            "ruleIndex": rule_ids.index(status),
            "level": level,
            "message": {"text": _message(findings)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": first.use.file, "uriBaseId": ROOT_ID},
                        "region": _region(first.location),
                    }
                }
            ],
            "partialFingerprints": {"portbench/v1": first.fingerprint},
            "properties": {
                "api": first.use.api,
                "canonical": first.use.canonical,
                "framework": first.use.framework,
                "route": first.use.route,
                "targets": [f.target for f in findings],
                "release": first.verdict.release,
                "evidenceKind": first.verdict.kind.value if first.verdict.kind else None,
            },
        }
        if all(f.suppressed for f in findings):
            result["suppressions"] = [
                {"kind": "inSource", "justification": "# portbench: ignore comment"}
            ]
        if baseline_given:
            result["baselineState"] = "unchanged" if all(f.baselined for f in findings) else "new"
        results.append(result)
    notifications = [
        {
            "level": "warning",
            "message": {"text": f"not scanned: {why}"},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": rel, "uriBaseId": ROOT_ID}}}
            ],
        }
        for rel, why in report.result.unparsed
    ]
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "portbench-scan",
                        "version": __version__,
                        "rules": [
                            {
                                "id": rule_id,
                                "name": name,
                                "shortDescription": {"text": text},
                                "defaultConfiguration": {"level": level},
                            }
                            for rule_id, name, level, text in RULES.values()
                        ],
                    }
                },
                "originalUriBaseIds": {ROOT_ID: {"uri": root.resolve().as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": results,
            }
        ],
    }
