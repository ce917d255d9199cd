"""``portbench validate``: check a manifest and its rules, and their staleness against runs.

With run directories it reports the rules that matched nothing there (candidates for
removal or a fix) and the failures no rule matched (``other``), for curation.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from portbench_runner.contract import Rule

from ..errors import UsageError
from ..manifest import load_manifest
from ..results import CaseRecord, Category, Outcome, read_results
from ..rules import load_rules

__all__ = ["register", "rule_usage"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("validate", help="check a manifest and its rules (against runs)")
    parser.add_argument("--framework", required=True)
    parser.add_argument(
        "runs", nargs="*", type=Path, help="run or cell directories to check the rules against"
    )
    parser.set_defaults(func=_validate)


def _records(paths: list[Path], framework: str, console: Console) -> list[CaseRecord]:
    """The valid records of ``framework`` under ``paths``, read through the results layer
    (no link followed; damaged lines skipped, and how many is said)."""
    records = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path} does not exist; pass run or cell directories")
        files = [path] if path.name == "results.jsonl" else sorted(path.rglob("results.jsonl"))
        for results in files:
            read = read_results(results)
            if read.skipped:
                console.print(f"[yellow]note:[/] {escape(read.summary(results))}", soft_wrap=True)
            records += [r for r in read.records if r.framework == framework]
    return records


def rule_usage(
    rules: list[Rule], records: list[CaseRecord]
) -> tuple[Counter[str], list[CaseRecord]]:
    """How often each rule matched, and the failed records no rule matched."""
    used: Counter[str] = Counter({rule.id: 0 for rule in rules})
    unmatched = []
    not_by_rules = (Category.TIMEOUT, Category.CRASH, Category.FALLBACK)
    for record in records:
        if record.outcome is not Outcome.FAIL or record.category in not_by_rules:
            continue
        if record.rule:
            used[record.rule] += 1
        elif record.category is Category.OTHER:
            unmatched.append(record)
    return used, unmatched


def _validate(args: argparse.Namespace) -> int:
    console = Console()
    manifest = load_manifest(args.framework)
    rules = load_rules(args.framework)
    cases = sum(len(f.cases) for f in manifest.functions)
    thin = [f.function for f in manifest.functions if len(f.cases) < 3]
    console.print(
        f"{args.framework}: {len(manifest.functions)} functions, {cases} cases, {len(rules)} rules: valid"
    )
    if thin:
        console.print(f"[yellow]fewer than three cases:[/] {', '.join(thin)}")
    if not args.runs:
        return 0
    used, unmatched = rule_usage(rules, _records(args.runs, args.framework, console))
    table = Table(title="rules against the runs given")
    table.add_column("rule")
    table.add_column("matches", justify="right")
    for rule_id, count in sorted(used.items(), key=lambda kv: kv[1]):
        table.add_row(rule_id, str(count) if count else "[yellow]0 (stale?)[/]")
    console.print(table)
    for record in unmatched:
        error = record.error
        message = f"{error.type if error else None}: {(error.message if error else '')[:160]}"
        console.print(
            escape(f"unmatched: {record.case} ({record.cell}): {message}"), soft_wrap=True
        )
    return 0
