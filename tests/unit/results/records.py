"""A valid schema-2 record to start tests of the results layer from."""

from __future__ import annotations

from typing import Any

from portbench_runner.contract import Plan


def case_record(plan: Plan, name: str, **fields: object) -> dict[str, Any]:
    """A valid schema-2 record of case ``name`` of ``plan``'s first function, with ``fields`` set."""
    function = plan.functions[0]
    case = next(c for c in function.cases if c.name == name)
    record = {
        "schema": 2,
        "kind": "case",
        "cell": plan.cell,
        "framework": plan.framework,
        "accelerator": "cpu",
        "profile": plan.profile,
        "function": function.function,
        "study_test_file": function.study_test_file,
        "case": case.id,
        "case_name": name,
        "case_file": function.case_file,
        "case_file_sha256": None,
        "seed": case.seed,
        "outcome": "pass",
        "stage": None,
        "category": None,
        "rule": None,
        "reason": None,
        "error": None,
        "exit": None,
        "stderr_tail": None,
        "timing": {"cold_ms": 1.0, "warm": None},
        "evidence": None,
        "output": {"bytes": 0, "dropped_bytes": 0},
        "strays_killed": 0,
        "worker": {"pid": 1, "index": 0},
        "started_at": "2026-11-23T00:00:00+00:00",
        "duration_s": 0.1,
        "rerun": "portbench bench --case x",
    }
    record.update(fields)
    return record
