"""``trend/<framework>--<target>.json``: a framework on a target over its releases, for
machines (as the ONNX backend scoreboard keeps a trend file per backend).

One file per framework and target; inside, one entry per kind of evidence and suite, never
merged: per release the function outcomes, the case outcomes, the flaky cases, the date of
the newest evidence and the Python and NumPy the runs had; per adjacent pair what broke,
was fixed, changed, got slower or faster. No build time is written: the same store gives
the same files.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

from .history import ReleaseView
from .pages import series_order, slug
from .regressions import PairReport, SeriesReport

__all__ = ["TREND_SCHEMA", "trend_document", "trends"]

TREND_SCHEMA = 1


def _release(view: ReleaseView) -> dict[str, object]:
    counts = view.counts()
    cases = Counter(state.outcome for state in view.cases.values())
    return {
        "release": view.release,
        "runs": len(view.runs),
        "newest_evidence": view.newest.isoformat() if view.newest else None,
        "functions": {**dict(sorted(counts.items())), "total": sum(counts.values())},
        "cases": dict(sorted(cases.items())),
        "flaky": len(view.flaky),
        "python": sorted(view.facts("python")),
        "numpy": sorted(view.facts("numpy")),
    }


def _pair(pair: PairReport) -> dict[str, object]:
    speed = Counter(change.verdict for change in pair.speed)
    return {
        "before": pair.before.release,
        "after": pair.after.release,
        "broke": sorted(f.case for f in pair.of("broke")),
        "fixed": sorted(f.case for f in pair.of("fixed")),
        "changed": len(pair.of("changed")),
        "flaky": len(pair.flaky),
        "code_changed": len(pair.code_changed),
        "slower": speed.get("slower", 0),
        "faster": speed.get("faster", 0),
        "timing_tested": pair.speed_tested,
        "timing_too_few_samples": pair.speed_untested,
        "also_changed": pair.also_changed,
    }


def trend_document(framework: str, target: str, reports: list[SeriesReport]) -> dict[str, object]:
    return {
        "schema": TREND_SCHEMA,
        "kind": "portbench-trend",
        "framework": framework,
        "target": target,
        "series": [
            {
                "kind": report.key.kind,
                "suite": report.key.suite,
                "releases": [_release(view) for view in report.views],
                "changes": [_pair(pair) for pair in report.pairs],
                "steps": [
                    {
                        "case": s.case,
                        "release": s.release,
                        "previous": s.previous,
                        "ratio": round(s.step.ratio, 4),
                    }
                    for s in report.steps
                ],
            }
            for report in sorted(reports, key=lambda r: series_order(r.key))
        ],
    }


def trends(reports: list[SeriesReport], folder: Path) -> list[dict[str, str]]:
    """Write one trend file per framework and target; the list of what was written."""
    groups: dict[tuple[str, str], list[SeriesReport]] = defaultdict(list)
    for report in reports:
        groups[(report.key.framework, report.key.target)].append(report)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[dict[str, str]] = []
    for (framework, target), found in sorted(groups.items()):
        name = f"{slug(framework)}--{slug(target)}.json"
        document = trend_document(framework, target, found)
        (folder / name).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        written.append({"framework": framework, "target": target, "file": name})
    return written
