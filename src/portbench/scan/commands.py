"""``portbench scan PATH`` (will my code port?) and ``portbench scan-map`` (build an API map)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from ..accelerators import load_accelerators
from ..errors import UsageError
from ..paths import results_dir
from .apimap import ApiMap, available_maps, load_map, release_key
from .engine import ScanOptions, paused_gc, scan_project
from .evidence import EvidenceSource
from .findings import build_findings, read_baseline, write_baseline
from .mapmake import build_map_file
from .report import ScanReport, build_report
from .sarif import sarif_document
from .sources import ManifestNames, RunDirectories
from .terminal import print_report
from .verdict import STATUSES, Judge, ReleaseChoice, severity
from .walk import DEFAULT_EXCLUDES, MAX_FILE_BYTES, discover

__all__ = ["FAIL_ON", "failing_statuses", "register", "run_scan"]

FORMATS = ("terminal", "json", "sarif", "html")
#: ``--fail-on`` thresholds: a counted finding at this status or worse fails the run
#: (``untested`` includes ``unknown``: an API that cannot be named has no evidence either).
FAIL_ON = ("fails", "fallback", "untested")


def register(subparsers: Any) -> None:
    """Add ``scan`` and ``scan-map``."""
    scan = subparsers.add_parser(
        "scan", help="map a project's framework calls onto the evidence: will it port?"
    )
    scan.add_argument("path", type=Path, metavar="PATH", help="the project's folder")
    scan.add_argument(
        "--target",
        nargs="+",
        action="extend",
        metavar="ACCEL",
        help="accelerators to judge (default: every one the evidence holds)",
    )
    scan.add_argument(
        "--release",
        nargs="+",
        action="extend",
        metavar="RELEASE",
        help="newest (default: the newest release the evidence holds per "
        "framework), per-target, or FRAMEWORK=RELEASE",
    )
    scan.add_argument(
        "--runs",
        nargs="+",
        action="extend",
        type=Path,
        metavar="DIR",
        help="run directories to read evidence from (default: the store at "
        "results/store.duckdb if there is one, else results/)",
    )
    scan.add_argument(
        "--store",
        type=Path,
        metavar="FILE",
        help="read evidence from a store portbench ingest made "
        "(default: results/store.duckdb if there is one)",
    )
    scan.add_argument(
        "--maps",
        type=Path,
        metavar="DIR",
        help="folder of API maps (default: the ones portbench ships)",
    )
    scan.add_argument("--format", choices=FORMATS, default="terminal")
    scan.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="write the format there (the terminal summary still prints)",
    )
    scan.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        help="exit 1 when a finding at this status or worse counts, on any target",
    )
    scan.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="findings accepted before: only new ones count",
    )
    scan.add_argument(
        "--write-baseline",
        type=Path,
        metavar="FILE",
        help="accept every current finding (not works) into FILE",
    )
    scan.add_argument(
        "--guess-methods",
        action="store_true",
        help="match methods on unknown receivers by name alone (labelled guess)",
    )
    scan.add_argument(
        "--dtypes",
        nargs="+",
        action="extend",
        metavar="DTYPE",
        help="only evidence in these dtypes (cases whose name names another "
        "dtype and census pairs of other dtypes are left out)",
    )
    scan.add_argument(
        "--exclude",
        nargs="+",
        action="extend",
        default=[],
        metavar="GLOB",
        help="paths or names to leave out (beside "
        + ", ".join(sorted(DEFAULT_EXCLUDES)[:4])
        + ", ...)",
    )
    scan.add_argument("--max-file-bytes", type=int, default=MAX_FILE_BYTES, metavar="N")
    scan.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="keep what was read of each file in DIR, keyed by its content: "
        "later scans read only the files that changed",
    )
    scan.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="processes reading files (default: one per CPU; 1: this one alone)",
    )
    scan.add_argument(
        "--limit",
        type=int,
        default=30,
        metavar="N",
        help="APIs listed in the terminal (default 30)",
    )
    scan.set_defaults(func=_scan)

    mapper = subparsers.add_parser(
        "scan-map", help="build the API map of a framework release (APIs -> census operators)"
    )
    mapper.add_argument("--framework", required=True, choices=("torch", "tensorflow", "jax"))
    mapper.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter that has the framework (default: this one)",
    )
    mapper.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="folder for <framework>-<release>.json.gz (default: the maps portbench ships)",
    )
    mapper.add_argument("--force", action="store_true", help="replace a map of the same release")
    mapper.set_defaults(func=_scan_map)


def _maps(folder: Path | None, releases: ReleaseChoice) -> dict[str, ApiMap]:
    """One map per framework: the pinned release's where one was built, else the newest."""
    found = available_maps(folder)
    if folder is not None and not found:
        raise UsageError(
            f"{folder} holds no API map (<framework>-<release>.json.gz); build one with portbench scan-map"
        )
    chosen: dict[str, ApiMap] = {}
    pinned = dict(releases.pinned)
    for framework, maps in found.items():
        wanted = pinned.get(framework)
        exact = [p for rel, p in maps if wanted and release_key(rel) == release_key(wanted)]
        chosen[framework] = load_map(exact[0] if exact else maps[-1][1])
    return chosen


def _source(args: argparse.Namespace) -> EvidenceSource:
    """``--store FILE``, ``--runs DIR...``, else the store at results/store.duckdb where
    there is one, else results/ (never both: a cell in each would count twice)."""
    if args.runs and args.store is None:
        return RunDirectories(list(args.runs))
    # DuckDB (a fifth of a second to import) only where a store may be read.
    from ..store.db import default_store
    from .stored import StoreEvidence

    if args.store is not None and args.runs:
        raise UsageError(
            "pass --store or --runs, not both: a cell ingested into the store and still in "
            "its run directory would count twice"
        )
    if args.store is not None:
        if not args.store.is_file():
            raise UsageError(
                f"--store {args.store}: there is no store there; make one with "
                "portbench ingest RUN_DIR --store FILE"
            )
        return StoreEvidence(args.store)
    store = default_store()
    return StoreEvidence(store) if store.is_file() else RunDirectories([results_dir()])


def _targets(requested: list[str] | None, judge: Judge, frameworks: list[str]) -> list[str]:
    if not requested:
        return judge.targets(frameworks)
    known = load_accelerators()
    unknown = [t for t in requested if t not in known]
    if unknown:
        raise UsageError(
            f"unknown target {', '.join(unknown)} (known: {', '.join(known)}); "
            "targets are accelerator ids of images/accelerators.toml"
        )
    return list(dict.fromkeys(requested))


def run_scan(args: argparse.Namespace) -> tuple[ScanReport, int]:
    """The scan ``args`` asks for, and its exit status (without printing anything)."""
    started = time.perf_counter()
    releases = ReleaseChoice.parse(args.release)
    if args.max_file_bytes <= 0:
        raise UsageError("--max-file-bytes must be a positive number of bytes")
    discovery = discover(
        args.path,
        patterns=tuple(args.exclude),
        max_file_bytes=args.max_file_bytes,
    )
    baseline = read_baseline(args.baseline) if args.baseline else frozenset()
    source = _source(args)  # before the project is read: a wrong --store costs nothing
    maps = _maps(args.maps, releases)
    prepared_s = 0.0

    def prepare() -> None:
        # The evidence that does not depend on the uses, read while workers read the files.
        nonlocal prepared_s
        begun = time.perf_counter()
        source.prepare()
        prepared_s = time.perf_counter() - begun

    result = scan_project(
        discovery,
        maps,
        ScanOptions(
            jobs=args.jobs,
            guess_methods=args.guess_methods,
            max_file_bytes=args.max_file_bytes,
            cache=args.cache,
        ),
        meanwhile=prepare,
    )
    evidence_started = time.perf_counter()
    judge = Judge(
        source,
        maps,
        ManifestNames.read(),
        releases,
        frozenset(args.dtypes) if args.dtypes else None,
    )
    frameworks = sorted({u.framework for u in result.uses})
    judge.load(frameworks, result.uses)
    evidence_s = time.perf_counter() - evidence_started
    targets = _targets(args.target, judge, frameworks)
    findings = build_findings(result.uses, result.by_rel, judge, targets, baseline)
    per_release = {
        fw: {target: judge.release_for(fw, target) for target in targets} for fw in frameworks
    }
    problems = list(getattr(source, "problems", []))
    extra = {
        "evidence": source.describe(),
        "evidence_problems": problems,
        "maps": {fw: {"release": m.release, "file": Path(m.path).name} for fw, m in maps.items()},
        "baseline": str(args.baseline) if args.baseline else None,
        **(
            {"cache": {"folder": str(args.cache), "files_from_cache": result.cached}}
            if args.cache
            else {}
        ),
        "timings_s": {
            "read": round(result.timings_s.get("read", 0.0), 3),
            "resolve": round(result.timings_s.get("resolve", 0.0), 3),
            "evidence": round(evidence_s + prepared_s, 3),
            "evidence_while_reading": round(prepared_s, 3),
            "total": round(time.perf_counter() - started, 3),
        },
    }
    report = build_report(str(args.path), result, findings, targets, per_release, extra)
    if args.write_baseline:
        statuses = {s for s in STATUSES if s != "works"}
        write_baseline(args.write_baseline, findings, statuses)
    status = 0
    if args.fail_on:
        failing = failing_statuses(args.fail_on)
        if any(f.counts and f.verdict.status in failing for f in findings):
            status = 1
    report.summary["timings_s"]["total"] = round(time.perf_counter() - started, 3)
    return report, status


def _scan(args: argparse.Namespace) -> int:
    with paused_gc():  # see paused_gc: the whole command, report and output included
        return _scan_and_write(args)


def _scan_and_write(args: argparse.Namespace) -> int:
    report, status = run_scan(args)
    console = Console(highlight=False, soft_wrap=False)
    document: str | None = None
    # Compact JSON: with an indent, the json module encodes in Python instead of C (five
    # times slower on a large project's report).
    if args.format == "json":
        document = json.dumps(report.to_json(), separators=(",", ":"))
    elif args.format == "sarif":
        document = json.dumps(sarif_document(report, args.path), separators=(",", ":"))
    elif args.format == "html":
        from .html import render_html  # jinja2, imported only for the page

        document = render_html(report)
    if document is None or args.out is not None:
        print_report(
            report,
            console if document is None else Console(stderr=True, highlight=False),
            args.limit,
        )
    if document is not None:
        if args.out is not None:
            args.out.write_text(document + "\n", encoding="utf-8")
        else:
            sys.stdout.write(document + "\n")
    if args.write_baseline:
        Console(stderr=True).print(f"baseline written to {args.write_baseline}")
    if status and args.fail_on:
        failing = failing_statuses(args.fail_on)
        targets = [
            t for t, counts in report.status_counts().items() if any(counts[s] for s in failing)
        ]
        Console(stderr=True, highlight=False).print(
            f"[bold red]--fail-on {args.fail_on}:[/] findings at that status or worse on "
            + ", ".join(targets)
        )
    return status


def failing_statuses(fail_on: str) -> set[str]:
    """The statuses ``--fail-on fail_on`` fails on: it and every worse one; ``untested``
    also takes ``unknown`` (an API that cannot be named has no evidence either)."""
    statuses = {s for s in STATUSES if severity(s) <= severity(fail_on)}
    if fail_on == "untested":
        statuses.add("unknown")
    return statuses


def _scan_map(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False)
    path, document = build_map_file(args.framework, args.python, args.out, args.force, console)
    counts = document.get("counts", {})
    console.print(
        f"{args.framework} {document.get('release')}: {counts.get('canonical', 0)} APIs, "
        f"{counts.get('with_ops', 0)} mapped to census operators -> {path}"
    )
    return 0
