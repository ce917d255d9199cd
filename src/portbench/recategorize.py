"""What a set of failure rules says of failures already recorded: per cell, the failed cases
and how many are ``other``, as recorded and as the rules would categorize them now.

``python -m portbench.recategorize [--rules MANIFESTS_DIR] RUN_OR_CELL_DIR...`` prints one
Markdown row per portbench cell. A cell records each failure's category when it runs, so a
rule edit reaches a cell only when it runs again; this shows beforehand (and, given an older
tree's ``manifests/``, afterwards) what the edit changes, for docs/failure-categories.md.

Only a failure whose category came from the rules is categorized again (an exception the
worker matched: a rule id, or ``other`` with no rule); a case's own ``ctx.check`` category,
a timeout, a crash and a fallback stay as recorded. The record keeps the exception's class,
not its parents, so a rule that names only a parent class matches here less often than at
run time. The ``same now`` column counts the failures to which this tree's rules give the
recorded category again: the others are rules changed since the cell ran, or such a gap.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from portbench_runner.classify import classify_names
from portbench_runner.contract import CaseRecord, Category, Outcome, Rule, StudyRecord

from .errors import PortbenchError
from .report.load import Cell, find_cells, load_cell
from .rules import load_rules

__all__ = ["Recount", "main", "recount"]

#: The error type of a case's own failed check (its category is the case's, not a rule's).
_CHECK_FAILED = "CheckFailed"


@dataclass(frozen=True)
class Recount:
    cell: str
    failed: int
    other_recorded: int
    other_now: int
    same_now: int
    """Failures this tree's rules put in the category the record holds."""


def _by_rules(record: CaseRecord | StudyRecord) -> bool:
    """Whether the record's category came from the failure rules."""
    if record.outcome is not Outcome.FAIL or record.error is None:
        return False
    if (record.error.type or "").rsplit(".", 1)[-1] == _CHECK_FAILED:
        return False
    return record.rule is not None or record.category is Category.OTHER


def _names(error_type: str | None) -> list[str]:
    """The recorded class, module-qualified and bare (``builtins.RuntimeError``)."""
    if not error_type:
        return []
    return list(dict.fromkeys([error_type, error_type.rsplit(".", 1)[-1]]))


def _category(record: CaseRecord | StudyRecord, rules: list[Rule]) -> str:
    error = record.error
    stage = record.stage.value if record.stage is not None else "call"
    if error is None:
        return Category.OTHER.value
    return classify_names(_names(error.type), error.message, stage, rules)[0]


def recount(cell: Cell, rules: list[Rule], current: list[Rule]) -> Recount:
    """``cell``'s failures as recorded and under ``rules`` (``current``: this tree's)."""
    failed = [r for r in cell.records if r.outcome is Outcome.FAIL]
    other_now = same_now = 0
    for record in failed:
        recorded = record.category.value if record.category is not None else None
        if not _by_rules(record):
            other_now += recorded == Category.OTHER.value
            same_now += 1
            continue
        other_now += _category(record, rules) == Category.OTHER.value
        same_now += _category(record, current) == recorded
    other_recorded = sum(1 for r in failed if r.category is Category.OTHER)
    return Recount(
        f"{cell.cell_id} ({cell.path.parent.name})",
        len(failed),
        other_recorded,
        other_now,
        same_now,
    )


def _share(other: int, failed: int) -> str:
    return f"{other} / {failed} ({100 * other / failed:.1f}%)" if failed else "0 / 0"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m portbench.recategorize", description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path, help="run or cell directories")
    parser.add_argument(
        "--rules", type=Path, help="a manifests folder whose rules.toml to apply (default: ours)"
    )
    args = parser.parse_args(argv)
    try:
        cells = [load_cell(p) for p in find_cells(args.paths)]
        print("| cell (run) | failed | other as recorded | other under these rules | same now |")
        print("| --- | ---: | --- | --- | ---: |")
        for cell in cells:
            if cell.is_study:
                continue  # the importer categorizes the study's failures (the report's table)
            rules = load_rules(cell.framework, args.rules)
            row = recount(cell, rules, load_rules(cell.framework))
            print(
                f"| {row.cell} | {row.failed} | {_share(row.other_recorded, row.failed)} | "
                f"{_share(row.other_now, row.failed)} | {row.same_now} / {row.failed} |"
            )
    except PortbenchError as exc:
        parser.exit(2, f"error: {exc}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
