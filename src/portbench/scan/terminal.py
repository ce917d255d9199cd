"""The scan in the terminal: what was read, a table per target, the APIs worst first."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .report import ScanReport
from .verdict import STATUSES

__all__ = ["STYLES", "print_report"]

STYLES = {
    "fails": "bold red",
    "fallback": "yellow",
    "untested": "cyan",
    "unknown": "magenta",
    "works": "green",
}
#: Failing APIs whose cases are listed under the table.
DETAILS_KEPT = 10


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def _sentences(report: ScanReport) -> list[str]:
    summary = report.summary
    lines = []
    skipped = summary["skipped"]
    examples = summary["skipped_examples"]
    for reason, text in (
        ("link out of the tree", "link(s) out of the tree not followed"),
        (
            "link in the tree",
            "link(s) inside the tree not followed (their targets are scanned where they are)",
        ),
        ("too large", "file(s) over the size bound not read (--max-file-bytes)"),
        ("unreadable folder", "folder(s) could not be read"),
    ):
        if skipped.get(reason):
            lines.append(f"{skipped[reason]} {text}: {', '.join(examples.get(reason, []))}")
    if summary["unparsed"]:
        lines.append(
            f"{summary['unparsed']} file(s) do not parse and were skipped: "
            + "; ".join(summary["unparsed_examples"])
        )
    if summary["notebook_cells_skipped"]:
        lines.append(
            f"{summary['notebook_cells_skipped']} notebook cell(s) left out (not Python, or not parsing)"
        )
    return lines


def print_report(report: ScanReport, console: Console, limit: int = 30) -> None:
    """Summary, per-target table, and the worst APIs (``limit`` rows)."""
    s = report.summary
    console.print(
        f"[bold]portbench scan[/] {escape(report.project)}: {s['files']} files "
        f"({s['python_files']} Python, {s['notebooks']} notebooks, {_mb(s['bytes'])})"
    )
    for line in _sentences(report):
        console.print(f"  [yellow]{escape(line)}[/]")
    console.print(
        f"  uses found {s['uses']:,}: resolved to an API {s['resolved']:,}, unknown "
        f"{s['unknown']:,}; mapped to evidence {s['mapped_to_evidence']:,} ({s['apis']:,} APIs)"
    )
    if s["unresolved_method_calls"]:
        tail = "guessed where one receiver fits" if s["guessed"] else "--guess-methods to guess"
        console.print(
            f"  method calls on receivers not resolved: {s['unresolved_method_calls']:,} "
            f"(counted, not guessed; {tail})"
        )
    if s["guessed"]:
        console.print(f"  [magenta]uses guessed by method name alone: {s['guessed']:,}[/]")
    console.print(f"  evidence: {escape(s['evidence'])}")
    for problem in s.get("evidence_problems", [])[:5]:
        console.print(f"  [yellow]{escape(problem)}[/]")
    if not report.targets:
        console.print("  [yellow]no target: the evidence holds no cell of the frameworks used[/]")
        return
    table = Table(title="Uses per target (suppressed and baselined left out)", title_justify="left")
    table.add_column("target")
    table.add_column("release")
    for status in STATUSES:
        table.add_column(status, justify="right", style=STYLES[status])
    counts = report.status_counts()
    for target in report.targets:
        releases = ", ".join(
            f"{fw} {rels.get(target) or '-'}" for fw, rels in sorted(report.releases.items())
        )
        table.add_row(target, releases, *(f"{counts[target][st]:,}" for st in STATUSES))
    console.print(table)
    apis = Table(
        title=f"APIs, worst first ({min(limit, len(report.apis))} of {len(report.apis)})",
        title_justify="left",
    )
    apis.add_column("API")
    apis.add_column("uses", justify="right")
    for target in report.targets:
        apis.add_column(target)
    apis.add_column("first use")
    for row in report.apis[:limit]:
        cells = []
        for target in report.targets:
            verdict = row.verdicts.get(target)
            status = verdict.status if verdict else "-"
            marker = "" if row.counted.get(target, True) else " (silenced)"
            kind = (
                f" ({verdict.kind.value})"
                if verdict and verdict.kind and verdict.kind.value != "observed"
                else ""
            )
            cells.append(f"[{STYLES.get(status, 'dim')}]{status}{kind}{marker}[/]")
        apis.add_row(
            escape(row.api),
            str(row.uses),
            *cells,
            escape(row.locations[0] if row.locations else ""),
        )
    console.print(apis)
    shown = 0
    for row in report.apis:
        failing = [(t, v) for t, v in row.verdicts.items() if v.status in ("fails", "fallback")]
        if not failing or shown >= DETAILS_KEPT:
            continue
        shown += 1
        console.print(f"[bold]{escape(row.api)}[/]")
        for target, verdict in failing:
            console.print(
                f"  [{STYLES[verdict.status]}]{verdict.status}[/] on {target} "
                f"({escape(str(verdict.release))}, {verdict.kind.value if verdict.kind else '-'}, "
                f"{verdict.level}): {escape(verdict.detail)}"
            )
            for case, category, message in verdict.items[:3]:
                console.print(
                    f"    {escape(case)} [{escape(category)}] {escape(message[:160])}", style="dim"
                )
    timings = s.get("timings_s", {})
    if timings:
        console.print(
            f"scanned in {timings.get('total', 0):.1f} s (evidence {timings.get('evidence', 0):.1f} s"
            + (
                f", {timings['evidence_while_reading']:.1f} s of it while files were read"
                if timings.get("evidence_while_reading")
                else ""
            )
            + ", "
            f"reading {timings.get('read', 0):.1f} s, resolving {timings.get('resolve', 0):.1f} s)"
            + (
                f"; {s['cache']['files_from_cache']} file(s) from the cache"
                if s.get("cache")
                else ""
            ),
            style="dim",
        )
