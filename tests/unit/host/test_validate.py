"""Rule staleness: which rules matched nothing, which failures no rule matched."""

from __future__ import annotations

from portbench.commands.validate import rule_usage
from portbench_runner.contract import (
    CaseResult,
    Category,
    Outcome,
    RecordFactory,
    Rule,
    Stage,
    WorkerInfo,
)

from ..contract.plans import small_plan


def test_rule_usage_counts_matches_and_lists_unmatched() -> None:
    plan = small_plan()
    rules = [Rule("a", "type", ("E",)), Rule("b", "type", ("F",))]
    make = RecordFactory(plan).record
    fail = Outcome.FAIL
    records = [
        make(
            "demo.add::float32", CaseResult(fail, Stage.CALL, Category.TYPE, "a"), WorkerInfo(1, 0)
        ),
        make("demo.add::int32", CaseResult(fail, Stage.CALL, Category.OTHER), WorkerInfo(1, 0)),
        make("demo.add::int32", CaseResult(fail, Stage.CALL, Category.CRASH), WorkerInfo(1, 0)),
        make("demo.add::int32", CaseResult(Outcome.PASS), WorkerInfo(1, 0)),
    ]
    used, unmatched = rule_usage(rules, records)
    assert used == {"a": 1, "b": 0}
    assert [r.case for r in unmatched] == ["demo.add::int32"]
