"""A small typed plan to build records and messages from in the contract's tests."""

from __future__ import annotations

from portbench_runner.contract import (
    Plan,
    PlanAccelerator,
    PlanCase,
    PlanFunction,
    Rule,
)


def small_plan(**changes: object) -> Plan:
    """A plan of one function with two cases (and ``changes`` applied)."""
    cases = (
        PlanCase("demo.add::float32", "float32", 11, 60.0, "a" * 64),
        PlanCase("demo.add::int32", "int32", 12, None),
    )
    function = PlanFunction(
        "demo.add",
        "cases/add.py",
        cases,
        "add_test.py",
        "1",
        3,
        "b" * 64,
        None,
        ("float32", "int32"),
    )
    fields: dict[str, object] = {
        "cell": "python/cpu/host",
        "framework": "python",
        "profile": "host",
        "backend": "host",
        "accelerator": PlanAccelerator("cpu", "cpu", "", "cpu"),
        "manifest_root": "/m",
        "functions": (function,),
        "rerun_prefix": "portbench bench --framework python",
        "rules": (Rule("r1", "type", ("TypeError",), "dtype", ()),),
        "seed": 7,
        "portbench_version": "0.1.0",
    }
    fields.update(changes)
    return Plan(**fields)  # type: ignore[arg-type]
