"""Rule staleness: which rules matched nothing, which failures no rule matched."""

from __future__ import annotations

from portbench.commands.validate import rule_usage


def test_rule_usage_counts_matches_and_lists_unmatched() -> None:
    rules = [{"id": "a"}, {"id": "b"}]
    records = [
        {"outcome": "fail", "category": "type", "rule": "a"},
        {"outcome": "fail", "category": "other", "rule": None, "case": "f::x"},
        {"outcome": "fail", "category": "crash", "rule": None},
        {"outcome": "pass", "category": None, "rule": None},
    ]
    used, unmatched = rule_usage(rules, records)
    assert used == {"a": 1, "b": 0}
    assert [r["case"] for r in unmatched] == ["f::x"]
